/**
 * What kind of file a name is, by its extension, for every part of Studio that asks: the asset
 * listing (spec "Asset entries"), a job's primary output and result, the engine's `/view`
 * Content-Type, the gallery's previews and which files a ZIP stores without deflating. Hidden
 * files (a leading dot, like the `.incomplete` marker) are never media.
 *
 * `.mkv` is a video everywhere (the spec's asset list names `.mp4 .webm .mov .avi`; a workflow that
 * writes Matroska should find its output in the gallery like any other video).
 */
import path from 'node:path';

export type MediaKind = 'image' | 'video';

const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp']);
const VIDEO_EXTENSIONS: ReadonlySet<string> = new Set(['.mp4', '.webm', '.mov', '.avi', '.mkv']);

/** Extensions whose data is already compressed: stored in ZIPs as-is. */
const STORED_IN_ZIP: ReadonlySet<string> = new Set([...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS, '.zip', '.gz', '.safetensors']);

/** The engine's `mimetypes` guesses (its `/view` answers), the one map of extension → Content-Type. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.bmp': 'image/bmp',
  '.avif': 'image/avif',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.svg': 'image/svg+xml',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.mov': 'video/quicktime',
  '.avi': 'video/x-msvideo',
  '.wav': 'audio/x-wav',
  '.mp3': 'audio/mpeg',
  '.flac': 'audio/flac',
  '.ogg': 'audio/ogg',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
};

function extensionOf(name: string): string {
  return path.extname(name).toLowerCase();
}

/** `image`, `video`, or null for anything else (including hidden files). */
export function mediaKindOf(name: string): MediaKind | null {
  const base = path.basename(name);
  if (base.startsWith('.')) return null;
  const ext = extensionOf(base);
  if (IMAGE_EXTENSIONS.has(ext)) return 'image';
  if (VIDEO_EXTENSIONS.has(ext)) return 'video';
  return null;
}

/** The Content-Type of a file by its extension (`application/octet-stream` when unknown). */
export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extensionOf(name)] ?? 'application/octet-stream';
}

/** Whether a ZIP should store the file without deflating it (compressing media again gains nothing). */
export function isStoredInZip(name: string): boolean {
  return STORED_IN_ZIP.has(extensionOf(name));
}

/**
 * Extensions of model weights as a graph names them (a loader's file input): the engine's
 * `supported_pt_extensions` plus GGUF and ONNX, which common node packages load. The import's
 * required models, its form proposal, the pool's routing and the refusal's words all ask this.
 */
const MODEL_FILE = /\.(safetensors|ckpt|pt|pt2|pth|bin|pkl|sft|gguf|onnx)$/i;

/** Whether a graph's string value names a model file. */
export function isModelFileName(value: string): boolean {
  return MODEL_FILE.test(value);
}
