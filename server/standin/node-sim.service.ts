/**
 * What a node "computes" in the stand-in. Nothing is rendered: values only carry what later nodes
 * and the files they write need (image size for `%width%`, batch size for SaveImage's file count,
 * primitive values for strings). Output nodes write real files through `output-nodes.service.ts`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../http/contained-path.js';
import { annotatedPath, type EngineDirs } from '../engine/engine-paths.js';
import { imageSize } from './media.store.js';
import { firstSized, linked, scalar, type NodeResult, type NodeRunContext } from './node-context.util.js';
import { runOutputNode } from './output-nodes.service.js';
import type { NodeValue } from './standin.types.js';

const SIZED_TYPES = new Set(['IMAGE', 'LATENT', 'MASK', 'VIDEO']);
const DEFAULT_SIZE = { width: 64, height: 64 };

/** Run one node: its output values, and for output nodes the files written and their UI dict. */
export function runNode(ctx: NodeRunContext): NodeResult {
  const source = firstSized(ctx);
  const outputs = (ctx.info.output ?? []).map((type): NodeValue => {
    const name = typeof type === 'string' ? type : 'COMBO';
    if (!SIZED_TYPES.has(name)) return { type: name };
    return { type: name, width: source?.width ?? DEFAULT_SIZE.width, height: source?.height ?? DEFAULT_SIZE.height, batch: source?.batch ?? 1 };
  });
  const special = SPECIAL[ctx.classType];
  if (special) special(ctx, outputs, source);
  const ui = ctx.info.output_node === true ? runOutputNode(ctx, source) : null;
  return { outputs, ui };
}

type Special = (ctx: NodeRunContext, out: NodeValue[], source: NodeValue | undefined) => void;

const sized = (type: string, width: number, height: number, batch = 1): NodeValue => ({
  type,
  width: Math.max(0, Math.round(width)),
  height: Math.max(0, Math.round(height)),
  batch: Math.max(1, Math.round(batch)),
});

const primitive: Special = (ctx, out) => {
  out[0] = { type: out[0]?.type ?? 'STRING', value: scalar(ctx, 'value') };
};

const SPECIAL: Record<string, Special> = {
  EmptyImage: (ctx, out) => (out[0] = sized('IMAGE', num(ctx, 'width', 512), num(ctx, 'height', 512), num(ctx, 'batch_size', 1))),
  EmptyLatentImage: (ctx, out) => (out[0] = sized('LATENT', num(ctx, 'width', 512), num(ctx, 'height', 512), num(ctx, 'batch_size', 1))),
  EmptySD3LatentImage: (ctx, out) => (out[0] = sized('LATENT', num(ctx, 'width', 1024), num(ctx, 'height', 1024), num(ctx, 'batch_size', 1))),
  SolidMask: (ctx, out) => (out[0] = sized('MASK', num(ctx, 'width', 512), num(ctx, 'height', 512))),
  ImageScale: (ctx, out, src) => {
    const s = src ?? sized('IMAGE', 64, 64);
    let width = num(ctx, 'width', 512);
    let height = num(ctx, 'height', 512);
    // 0 means "keep the aspect ratio" in the engine.
    if (width === 0 && height === 0) [width, height] = [s.width ?? 64, s.height ?? 64];
    else if (width === 0) width = ((s.width ?? 64) * height) / (s.height || 1);
    else if (height === 0) height = ((s.height ?? 64) * width) / (s.width || 1);
    out[0] = sized('IMAGE', width, height, s.batch);
  },
  ImageScaleBy: (ctx, out, src) => (out[0] = scaled('IMAGE', src, num(ctx, 'scale_by', 1))),
  LatentUpscaleBy: (ctx, out, src) => (out[0] = scaled('LATENT', src, num(ctx, 'scale_by', 1.5))),
  ImageUpscaleWithModel: (_ctx, out, src) => (out[0] = scaled('IMAGE', src, 4)),
  ImageScaleToTotalPixels: (ctx, out, src) => {
    const w = src?.width ?? 64;
    const h = src?.height ?? 64;
    out[0] = scaled('IMAGE', src, Math.sqrt((num(ctx, 'megapixels', 1) * 1024 * 1024) / Math.max(1, w * h)));
  },
  ImageCrop: (ctx, out, src) => (out[0] = sized('IMAGE', num(ctx, 'width', 512), num(ctx, 'height', 512), src?.batch)),
  ImageRotate: (ctx, out, src) => {
    const turn = String(scalar(ctx, 'rotation') ?? '');
    if (src && (turn.startsWith('90') || turn.startsWith('270'))) out[0] = sized('IMAGE', src.height ?? 64, src.width ?? 64, src.batch);
  },
  RepeatImageBatch: (ctx, out, src) => (out[0] = sized('IMAGE', src?.width ?? 64, src?.height ?? 64, (src?.batch ?? 1) * num(ctx, 'amount', 1))),
  ImageBatch: (ctx, out, src) => {
    const second = linked(ctx, 'image2');
    out[0] = sized('IMAGE', src?.width ?? 64, src?.height ?? 64, (src?.batch ?? 1) + (second?.batch ?? 1));
  },
  WanImageToVideo: (ctx, out) => (out[2] = sized('LATENT', num(ctx, 'width', 832), num(ctx, 'height', 480), num(ctx, 'length', 81))),
  GetImageSize: (_ctx, out, src) => {
    out[0] = { type: 'INT', value: src?.width ?? 64 };
    out[1] = { type: 'INT', value: src?.height ?? 64 };
    out[2] = { type: 'INT', value: src?.batch ?? 1 };
  },
  LoadImage: (ctx, out) => loadedImage(ctx, out),
  LoadImageMask: (ctx, out) => loadedImage(ctx, out),
  PrimitiveInt: primitive,
  PrimitiveFloat: primitive,
  PrimitiveBoolean: primitive,
  PrimitiveString: primitive,
  PrimitiveStringMultiline: primitive,
  StringConcatenate: (ctx, out) => {
    const parts = [scalar(ctx, 'string_a'), scalar(ctx, 'string_b')].map((v) => (v === undefined ? '' : String(v)));
    out[0] = { type: 'STRING', value: parts.join(String(scalar(ctx, 'delimiter') ?? '')) };
  },
};

function loadedImage(ctx: NodeRunContext, out: NodeValue[]): void {
  const name = scalar(ctx, 'image');
  const size = typeof name === 'string' ? readImageSize(name, ctx.dirs) : null;
  const { width, height } = size ?? DEFAULT_SIZE;
  for (let i = 0; i < out.length; i += 1) {
    const type = out[i]?.type ?? 'IMAGE';
    if (SIZED_TYPES.has(type)) out[i] = sized(type, width, height);
  }
}

function readImageSize(name: string, dirs: EngineDirs): { width: number; height: number } | null {
  const { name: rel, dir } = annotatedPath(name, dirs, 'input');
  if (!dir) return null;
  const file = path.resolve(dir, rel);
  if (!isInside(dir, file)) return null;
  try {
    return imageSize(fs.readFileSync(file));
  } catch {
    return null;
  }
}

function scaled(type: string, src: NodeValue | undefined, factor: number): NodeValue {
  return sized(type, (src?.width ?? 64) * factor, (src?.height ?? 64) * factor, src?.batch);
}

function num(ctx: NodeRunContext, name: string, fallback: number): number {
  const value = scalar(ctx, name);
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
