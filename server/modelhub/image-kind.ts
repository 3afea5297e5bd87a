/**
 * What kind of generation made a hub image: text or image in, image or video out. The public
 * `/images` API has no `process` field (the internal generation-data route has), so it is read
 * from whatever the item and its `meta` carry: `process`/`workflow` names (`txt2img`, `img2img`,
 * `img2vid`, `image2video`, …), A1111's `Denoising strength` without hires fix, or a source image.
 */
import type { ModelhubImage } from '../modelhub-client/modelhub.schema.js';
import type { DetectedType } from '../contracts/modelhub.contract.js';

/** The generation process as a name (`txt2img`, `img2img`, `txt2vid`, `img2vid`). */
export function detectProcess(image: ModelhubImage): string {
  const meta = image.meta ?? {};
  const named = firstString(image.process, meta.process, meta.workflow);
  const video = isVideo(image, named);
  const fromImage = named !== null ? /img2|image2|i2v|i2i|img-to|image-to/i.test(named) : hasImageInput(meta);
  return `${fromImage ? 'img' : 'txt'}2${video ? 'vid' : 'img'}`;
}

/** `t2i` / `i2i` / `t2v` / `i2v` from the process name. */
export function detectedType(process: string): DetectedType {
  const input = process.startsWith('img') ? 'i' : 't';
  const output = process.endsWith('vid') ? 'v' : 'i';
  return `${input}2${output}` as DetectedType;
}

/** A string array from a field that may be missing, a string, or objects with a `name`. */
export function nameList(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function isVideo(image: ModelhubImage, named: string | null): boolean {
  if (image.type === 'video') return true;
  return named !== null && /vid|video|2v\b|t2v|i2v/i.test(named);
}

function hasImageInput(meta: Record<string, unknown>): boolean {
  if (meta.sourceImage || meta.image || meta.init_image || meta.initImage) return true;
  const images = meta.images;
  if (Array.isArray(images) && images.length > 0) return true;
  const denoise = Number(meta['Denoising strength'] ?? meta.denoise ?? NaN);
  const hires = meta['Hires upscale'] !== undefined || meta['Hires steps'] !== undefined || meta['Hires upscaler'] !== undefined;
  return Number.isFinite(denoise) && denoise < 1 && !hires;
}

function firstString(...values: unknown[]): string | null {
  for (const value of values) if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return null;
}
