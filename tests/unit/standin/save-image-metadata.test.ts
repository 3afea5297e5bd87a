/**
 * The stand-in's SaveImage writes the engine's own PNG text chunks: `prompt` (the graph as
 * queued) and each `extra_pnginfo` key (`workflow`), as `json.dumps` writes them, so an output
 * dropped into the editor restores its workflow and the pixels are the shipped image's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMedia, standinResourcesDir } from '../../../server/standin/media.store.js';
import { runOutputNode } from '../../../server/standin/output-nodes.service.js';
import { pyJsonDumps } from '../../../server/standin/png-text.util.js';
import type { NodeRunContext } from '../../../server/standin/node-context.util.js';
import { embeddedTexts } from '../../../server/workflows/import/embedded-metadata.js';

let out: string;
beforeEach(() => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});
afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

const media = loadMedia(standinResourcesDir());
const graph = {
  '3': { class_type: 'KSampler', inputs: { seed: 7, steps: 20, cfg: 7.5, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'job/final/ComfyUI', images: ['8', 0] } },
};
const workflow = { last_node_id: 9, nodes: [{ id: 9, type: 'SaveImage', title: 'Bild speichern é' }], links: [], version: 0.4 };

function ctx(classType: string, extra: Record<string, unknown>): NodeRunContext {
  return {
    nodeId: '9',
    classType,
    info: { input: { required: {} }, output: [], output_node: true } as unknown as NodeRunContext['info'],
    inputs: { filename_prefix: { kind: 'literal', value: 'job/final/ComfyUI' }, images: { kind: 'link', value: { type: 'IMAGE', width: 64, height: 64, batch: 1 } } },
    dirs: { input: out, output: out, temp: out },
    media,
    extraData: extra,
    graph,
  };
}

describe('stand-in SaveImage metadata', () => {
  it('writes the prompt and workflow chunks, keeping the pixels', async () => {
    const ui = runOutputNode(ctx('SaveImage', { extra_pnginfo: { workflow } }), undefined) as { images: Array<{ filename: string; subfolder: string }> };
    const file = path.join(out, ui.images[0]!.subfolder, ui.images[0]!.filename);
    const bytes = fs.readFileSync(file);
    const texts = embeddedTexts(bytes);
    expect(Object.keys(texts)).toEqual(['prompt', 'workflow']);
    expect(JSON.parse(texts.prompt!)).toEqual(graph);
    expect(JSON.parse(texts.workflow!)).toEqual(workflow);
    // json.dumps: ", " and ": " separators, non-ASCII escaped.
    expect(texts.workflow).toContain('"title": "Bild speichern \\u00e9"');
    const [a, b] = await Promise.all([sharp(bytes).raw().toBuffer(), sharp(media.png).raw().toBuffer()]);
    expect(a.equals(b)).toBe(true);
  });

  it('PreviewImage writes them too; without extra_pnginfo only the prompt', () => {
    const ui = runOutputNode(ctx('PreviewImage', {}), undefined) as { images: Array<{ filename: string; subfolder: string }> };
    const texts = embeddedTexts(fs.readFileSync(path.join(out, ui.images[0]!.subfolder, ui.images[0]!.filename)));
    expect(Object.keys(texts)).toEqual(['prompt']);
  });

  it('dumps JSON like Python', () => {
    expect(pyJsonDumps({ a: [1, 'x', null, true], b: { c: 2.5 } })).toBe('{"a": [1, "x", null, true], "b": {"c": 2.5}}');
  });
});
