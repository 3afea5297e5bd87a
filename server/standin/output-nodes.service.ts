/**
 * Output nodes: write real files where the engine would (see save-path.util.ts) and return the
 * UI dict in the engine's exact shape for each node class.
 */
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NodeFailure, linked, scalar, type NodeRunContext } from './node-context.util.js';
import { pyStr, pyTruthy } from '../engine/prompt-rules/py-format.js';
import { saveImageTexts, withTextChunks } from './png-text.util.js';
import { SavePathError, comfyFileName, resolveSaveTarget, vhsFileName, type SaveTarget } from './save-path.util.js';
import type { NodeUi, NodeValue } from './standin.types.js';

type Writer = (ctx: NodeRunContext, source: NodeValue | undefined) => NodeUi | null;

/** Batch images written per SaveImage call at most (a huge batch_size should not fill the disk). */
const MAX_FILES_PER_NODE = 64;

/** Write the node's files and return its UI dict (null when the node shows nothing). */
export function runOutputNode(ctx: NodeRunContext, source: NodeValue | undefined): NodeUi | null {
  const writer = WRITERS[ctx.classType] ?? genericWriter(ctx);
  try {
    return writer(ctx, source);
  } catch (err) {
    if (err instanceof SavePathError) throw new NodeFailure('Exception', err.message);
    throw err;
  }
}

const WRITERS: Record<string, Writer> = {
  SaveImage: (ctx, src) => ({ images: saveImages(ctx, src, prefixOf(ctx, 'ComfyUI'), 'output') }),
  PreviewImage: (ctx, src) => ({ images: saveImages(ctx, src, `ComfyUI_temp_${randomLetters(5)}`, 'temp') }),
  SaveAnimatedWEBP: (ctx, src) => ({ images: [saveOne(ctx, src, 'ComfyUI', 'webp', ctx.media.webp)], animated: [true] }),
  SaveAnimatedPNG: (ctx, src) => ({ images: [saveOne(ctx, src, 'ComfyUI', 'png', ctx.media.png)], animated: [true] }),
  SaveWEBM: (ctx, src) => ({ images: [saveOne(ctx, src, 'ComfyUI', 'webm', ctx.media.webm)], animated: [true] }),
  // Core SaveVideo reports videos under `images` plus `animated`, not under a `videos` key.
  SaveVideo: (ctx, src) => ({ images: [saveOne(ctx, src, 'video/ComfyUI', 'mp4', ctx.media.mp4)], animated: [true] }),
  VHS_VideoCombine: (ctx) => videoCombine(ctx),
  PreviewAny: (ctx) => ({ text: [describe(ctx)] }),
  // It streams PNGs over the socket in the engine and shows nothing in history.
  SaveImageWebsocket: () => null,
};

/** Unknown output classes (from a `--object-info` dump): save like SaveImage / PreviewImage, else no UI. */
function genericWriter(ctx: NodeRunContext): Writer {
  if (ctx.inputs.filename_prefix) return WRITERS.SaveImage as Writer;
  if (ctx.inputs.images) return WRITERS.PreviewImage as Writer;
  return () => null;
}

function saveImages(ctx: NodeRunContext, src: NodeValue | undefined, prefix: string, type: 'output' | 'temp') {
  const target = resolveSaveTarget(prefix, type === 'output' ? ctx.dirs.output : ctx.dirs.temp, sizeOf(src), 'comfy');
  const count = Math.min(MAX_FILES_PER_NODE, Math.max(1, src?.batch ?? 1));
  const results: Array<{ filename: string; subfolder: string; type: string }> = [];
  // Like the engine's SaveImage (PreviewImage inherits it): the prompt and extra_pnginfo as tEXt chunks.
  const png = withTextChunks(ctx.media.png, saveImageTexts(ctx.graph, ctx.extraData.extra_pnginfo));
  for (let batch = 0; batch < count; batch += 1) {
    const name = comfyFileName(target.filename.replaceAll('%batch_num%', String(batch)), target.counter + batch, 'png');
    fs.writeFileSync(path.join(target.folder, name), png);
    results.push({ filename: name, subfolder: target.subfolder, type });
  }
  return results;
}

function saveOne(ctx: NodeRunContext, src: NodeValue | undefined, defaultPrefix: string, ext: string, bytes: Buffer) {
  const target = resolveSaveTarget(prefixOf(ctx, defaultPrefix), ctx.dirs.output, sizeOf(src), 'comfy');
  const name = comfyFileName(target.filename, target.counter, ext);
  fs.writeFileSync(path.join(target.folder, name), bytes);
  return { filename: name, subfolder: target.subfolder, type: 'output' };
}

/** VideoHelperSuite: `name_00001.<ext>` (no trailing underscore) plus a first-frame `name_00001.png`. */
function videoCombine(ctx: NodeRunContext): NodeUi {
  const saveOutput = pyTruthy(scalar(ctx, 'save_output') ?? true);
  const type = saveOutput ? 'output' : 'temp';
  // VHS calls get_save_image_path without a size, so %width% / %height% become 0 there.
  const target: SaveTarget = resolveSaveTarget(prefixOf(ctx, 'AnimateDiff'), saveOutput ? ctx.dirs.output : ctx.dirs.temp, { width: 0, height: 0 }, 'vhs');
  const format = typeof scalar(ctx, 'format') === 'string' ? (scalar(ctx, 'format') as string) : 'image/gif';
  const { ext, bytes } = videoFile(format, ctx);
  let workflowImage: string | null = null;
  if (wantsMetadataImage(ctx) && ext !== 'png') {
    workflowImage = vhsFileName(target.filename, target.counter, 'png');
    fs.writeFileSync(path.join(target.folder, workflowImage), ctx.media.png);
  }
  const filename = vhsFileName(target.filename, target.counter, ext);
  const fullpath = path.join(target.folder, filename);
  fs.writeFileSync(fullpath, bytes);
  const frameRate = scalar(ctx, 'frame_rate');
  return {
    gifs: [
      {
        filename,
        subfolder: target.subfolder,
        type,
        format,
        frame_rate: typeof frameRate === 'number' ? frameRate : 8,
        workflow: workflowImage,
        fullpath,
      },
    ],
  };
}

// The stand-in ships one file per container; formats it has no file for get the closest one.
function videoFile(format: string, ctx: NodeRunContext): { ext: string; bytes: Buffer } {
  if (format === 'image/gif' || format.endsWith('-gif')) return { ext: 'gif', bytes: ctx.media.gif };
  if (format === 'image/webp') return { ext: 'webp', bytes: ctx.media.webp };
  if (format.endsWith('webm')) return { ext: 'webm', bytes: ctx.media.webm };
  if (format.endsWith('-png')) return { ext: 'png', bytes: ctx.media.png };
  if (format.endsWith('-mkv')) return { ext: 'mkv', bytes: ctx.media.webm };
  if (format === 'video/ProRes') return { ext: 'mov', bytes: ctx.media.mp4 };
  return { ext: 'mp4', bytes: ctx.media.mp4 };
}

/** VHS skips the metadata PNG when the UI workflow says `extra.VHS_MetadataImage: false`. */
function wantsMetadataImage(ctx: NodeRunContext): boolean {
  const pnginfo = ctx.extraData.extra_pnginfo as { workflow?: { extra?: { VHS_MetadataImage?: unknown } } } | undefined;
  return pnginfo?.workflow?.extra?.VHS_MetadataImage !== false;
}

function prefixOf(ctx: NodeRunContext, fallback: string): string {
  const value = scalar(ctx, 'filename_prefix');
  return value === undefined || value === null ? fallback : pyStr(value);
}

function sizeOf(src: NodeValue | undefined): { width: number; height: number } {
  return { width: src?.width ?? 0, height: src?.height ?? 0 };
}

function describe(ctx: NodeRunContext): string {
  const value = linked(ctx, 'source');
  if (!value) return pyStr(scalar(ctx, 'source') ?? null);
  if (value.value !== undefined) return pyStr(value.value);
  if (value.width !== undefined) return `${value.type} ${value.batch ?? 1}x${value.width}x${value.height} (stand-in)`;
  return `${value.type} (stand-in)`;
}

function randomLetters(count: number): string {
  let out = '';
  for (let i = 0; i < count; i += 1) out += String.fromCharCode(97 + randomInt(26));
  return out;
}
