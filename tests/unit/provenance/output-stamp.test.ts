/**
 * Output metadata written at collection: the A1111 `parameters` text read back by an infotext
 * parser written from the format's description gives the prompt, negative, steps, sampler, CFG,
 * seed, size, model hash and LoRA hashes of the graph that ran; every format keeps its pixels
 * (PNG, JPEG and WebP re-opened with sharp; video streams copied) and the engine's own chunks.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../server/logging.js';
import { userCommentOf } from '../../../server/provenance/exif-comment.js';
import { OutputStamper } from '../../../server/provenance/output-stamp.js';
import { pngTexts } from '../../../server/provenance/png-text.js';
import { loadMedia, standinResourcesDir } from '../../../server/standin/media.store.js';
import { saveImageTexts, withTextChunks } from '../../../server/standin/png-text.util.js';
import { embeddedTexts } from '../../../server/workflows/import/embedded-metadata.js';
import { parseInfotext } from '../../helpers/a1111-infotext.js';

const SHA = { ckpt: 'ab12cd34ef'.padEnd(64, '0'), style: '0011223344'.padEnd(64, '1'), detail: '99887766aa'.padEnd(64, '2') };
const LORA_GRAPH = {
  '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl/sd_xl_base_1.0.safetensors' } },
  '2': { class_type: 'LoraLoader', inputs: { lora_name: 'style.safetensors', strength_model: 0.8, strength_clip: 0.8, model: ['1', 0], clip: ['1', 1] } },
  '3': { class_type: 'LoraLoader', inputs: { lora_name: 'detail.safetensors', strength_model: 0.5, strength_clip: 1, model: ['2', 0], clip: ['2', 1] } },
  '4': { class_type: 'CLIPTextEncode', inputs: { text: 'a castle, at dusk: "golden" light', clip: ['3', 1] } },
  '5': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, low quality', clip: ['3', 1] } },
  '6': { class_type: 'EmptyLatentImage', inputs: { width: 832, height: 1216, batch_size: 1 } },
  '7': { class_type: 'KSampler', inputs: { seed: 123456789, steps: 28, cfg: 6.5, sampler_name: 'dpmpp_2m', scheduler: 'karras', denoise: 1, model: ['3', 0], positive: ['4', 0], negative: ['5', 0], latent_image: ['6', 0] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['7', 0], vae: ['1', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'job/final/ComfyUI', images: ['8', 0] } },
};
const WORKFLOW = { last_node_id: 9, nodes: [{ id: 4, type: 'CLIPTextEncode', widgets_values: ['a castle, at dusk: "golden" light'] }], links: [] };

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-stamp-'));
  fs.mkdirSync(path.join(dir, 'final'));
  fs.mkdirSync(path.join(dir, 'preview'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const media = loadMedia(standinResourcesDir());

function stamper(opts: { enabled?: boolean; private?: boolean } = {}) {
  return new OutputStamper({
    enabled: () => opts.enabled ?? true,
    privatePrompts: () => opts.private ?? false,
    modelFacts: async ({ file }) => (file.includes('sd_xl') ? { sha256: SHA.ckpt, hubVersionId: 128078 } : file.startsWith('style') ? { sha256: SHA.style } : { sha256: SHA.detail }),
    logger: silentLogger,
  });
}

const raw = (bytes: Buffer, animated = false) => sharp(bytes, { animated }).raw().toBuffer();
const put = (name: string, bytes: Buffer) => {
  fs.writeFileSync(path.join(dir, name), bytes);
  return path.join(dir, name);
};
const streamMd5 = (file: string) => execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0', '-c', 'copy', '-f', 'md5', '-']).toString().trim();
const comment = (file: string) => (JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format_tags', '-of', 'json', file]).toString()) as { format: { tags?: Record<string, string> } }).format.tags ?? {};

function expectParameters(text: string | undefined) {
  const info = parseInfotext(text ?? '');
  expect(info.prompt).toBe('a castle, at dusk: "golden" light');
  expect(info.negative).toBe('blurry, low quality');
  expect(info.fields).toMatchObject({ Steps: '28', Sampler: 'DPM++ 2M', 'Schedule type': 'Karras', 'CFG scale': '6.5', Seed: '123456789', 'Model hash': 'ab12cd34ef', Model: 'sd_xl_base_1.0' });
  expect([info.width, info.height]).toEqual([832, 1216]);
  expect(info.fields).not.toHaveProperty('Denoising strength');
  expect(info.loraHashes).toEqual({ style: '0011223344', detail: '99887766aa' });
  expect(info.resources).toEqual([
    { type: 'checkpoint', modelName: 'sd_xl_base_1.0', hash: 'ab12cd34ef', modelVersionId: 128078 },
    { type: 'lora', modelName: 'style', weight: 0.8, hash: '0011223344' },
    { type: 'lora', modelName: 'detail', weight: 0.5, hash: '99887766aa' },
  ]);
}

describe('output metadata', () => {
  it('PNG: parameters beside the engine chunks, same pixels, workflow still parses; previews untouched; twice gives one', async () => {
    const engineFile = withTextChunks(media.png, saveImageTexts(LORA_GRAPH, { workflow: WORKFLOW }));
    const file = put('final/out_00001_.png', engineFile);
    put('preview/p.png', engineFile);
    expect(await stamper().stampFolder(dir, 'w', LORA_GRAPH)).toBe(1);
    await stamper().stampFolder(dir, 'w', LORA_GRAPH);
    const bytes = fs.readFileSync(file);
    expect(pngTexts(bytes).map(([k]) => k)).toEqual(['prompt', 'workflow', 'parameters']);
    const texts = embeddedTexts(bytes);
    expectParameters(texts.parameters);
    expect(JSON.parse(texts.workflow!)).toEqual(WORKFLOW);
    expect(JSON.parse(texts.prompt!)).toEqual(LORA_GRAPH);
    expect((await raw(bytes)).equals(await raw(media.png))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'preview/p.png')).equals(engineFile)).toBe(true);
  });

  it('JPEG and WebP (lossy, lossless, animated with the engine tags): EXIF UserComment, same pixels', async () => {
    const lossy = await sharp(media.png).webp({ quality: 80 }).toBuffer();
    const lossless = await sharp(media.png).webp({ lossless: true }).toBuffer();
    const files = { jpg: put('final/a.jpg', media.jpeg), lossy: put('final/b.webp', lossy), lossless: put('final/c.webp', lossless), anim: put('final/d.webp', media.webp) };
    expect(await stamper().stampFolder(dir, 'w', LORA_GRAPH)).toBe(4);
    for (const [file, before, animated] of [
      [files.jpg, media.jpeg, false],
      [files.lossy, lossy, false],
      [files.lossless, lossless, false],
      [files.anim, media.webp, true],
    ] as const) {
      const bytes = fs.readFileSync(file);
      const meta = await sharp(bytes).metadata();
      expect(meta.exif, file).toBeDefined();
      expectParameters(userCommentOf(meta.exif!) ?? undefined);
      expect((await raw(bytes, animated)).equals(await raw(before, animated)), file).toBe(true);
    }
  });

  it('keeps the engine tags of a WebP it stamps', async () => {
    // An engine-like WebP: sharp writes IFD0 ASCII tags as the engine's SaveAnimatedWEBP does.
    const engineWebp = await sharp(media.png).webp().withExifMerge({ IFD0: { Make: 'workflow:{"nodes": []}', Model: 'prompt:{"1": {}}' } }).toBuffer();
    const file = put('final/e.webp', engineWebp);
    await stamper().stampFolder(dir, 'w', LORA_GRAPH);
    const texts = embeddedTexts(fs.readFileSync(file));
    expect(texts).toMatchObject({ workflow: '{"nodes": []}', prompt: '{"1": {}}' });
  });

  it('MP4 and WebM: container comment, streams copied unchanged', async () => {
    for (const ext of ['mp4', 'webm'] as const) {
      const file = put(`final/v.${ext}`, ext === 'mp4' ? media.mp4 : media.webm);
      const before = streamMd5(file);
      await stamper().stampFolder(dir, 'w', LORA_GRAPH);
      expectParameters(comment(file).comment ?? comment(file).COMMENT);
      expect(streamMd5(file)).toBe(before);
    }
  });

  it('private prompts: no prompt lines, the engine chunks keep their nodes with the text emptied', async () => {
    const file = put('final/x.png', withTextChunks(media.png, saveImageTexts(LORA_GRAPH, { workflow: WORKFLOW })));
    await stamper({ private: true }).stampFolder(dir, 'w', LORA_GRAPH);
    const bytes = fs.readFileSync(file);
    expect(bytes.includes('castle')).toBe(false);
    const texts = embeddedTexts(bytes);
    const info = parseInfotext(texts.parameters!);
    expect([info.prompt, info.negative, info.fields.Seed]).toEqual(['', '', '123456789']);
    expect(JSON.parse(texts.prompt!)['7']).toEqual(LORA_GRAPH['7']);
    expect(JSON.parse(texts.workflow!).nodes[0].widgets_values).toEqual(['']);
  });

  it('the setting off: nothing is written', async () => {
    const engineFile = withTextChunks(media.png, saveImageTexts(LORA_GRAPH, {}));
    const file = put('final/y.png', engineFile);
    expect(await stamper({ enabled: false }).stampFolder(dir, 'w', LORA_GRAPH)).toBe(0);
    expect(fs.readFileSync(file).equals(engineFile)).toBe(true);
  });

  it('leaves out what the graph does not hold, and writes a denoise below 1', async () => {
    const graph = { '1': { class_type: 'KSampler', inputs: { seed: ['2', 0], steps: 4, cfg: 1, sampler_name: 'euler_ancestral', scheduler: 'beta', denoise: 0.45, latent_image: ['3', 0] } }, '2': { class_type: 'PrimitiveInt', inputs: { value: 77 } }, '3': { class_type: 'VAEEncode', inputs: {} } };
    const text = await stamper().parametersOf(graph, null);
    expect(text).toBe('Steps: 4, Sampler: Euler a, Schedule type: Beta, CFG scale: 1, Seed: 77, Denoising strength: 0.45');
    expect(await stamper().parametersOf({ '1': { class_type: 'LoadImage', inputs: { image: 'x.png' } } }, null)).toBeNull();
  });
});
