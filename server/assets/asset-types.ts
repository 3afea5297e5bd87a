/**
 * What counts as an asset (spec "Asset entries"): images and videos by extension; hidden files
 * (a leading dot, like the `.incomplete` marker) never do.
 */
import path from 'node:path';
import type { MediaType } from '../contracts/assets.contract.js';

const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp']);
const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set(['.mp4', '.webm', '.mov', '.avi']);

/** Extensions whose data is already compressed: stored in ZIPs as-is. */
const STORED_IN_ZIP: ReadonlySet<string> = new Set([...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS, '.mkv', '.zip', '.gz', '.safetensors']);

/** The two asset areas: engine inputs and job outputs. */
export type AssetType = 'inputs' | 'outputs';

/** `image`, `video`, or null for anything else (including hidden files). */
export function mediaTypeOf(name: string): MediaType | null {
  if (name.startsWith('.')) return null;
  const ext = path.extname(name).toLowerCase();
  if (IMAGE_EXTENSIONS.has(ext)) return 'image';
  if (VIDEO_EXTENSIONS.has(ext)) return 'video';
  return null;
}

/** Whether a ZIP should store the file without deflating it (compressing media again gains nothing). */
export function isStoredInZip(name: string): boolean {
  return STORED_IN_ZIP.has(path.extname(name).toLowerCase());
}

/** `inputs` / `outputs`, or null for any other value. */
export function parseAssetType(value: unknown): AssetType | null {
  return value === 'inputs' || value === 'outputs' ? value : null;
}
