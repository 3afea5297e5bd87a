/**
 * Gallery media on disk under `STUDIO_DIR/gallery/<model_id>/`: a model's own version images in
 * `previews/` (the LoRA previews `images/{model_id}/previews/{filename}` serves), community
 * images in `community/`, each `<image id>.<ext>` with an optional `<image id>.thumb.jpg`.
 * Media are fetched from the hub's CDN without the API token (the CDN needs none, and the token
 * must not travel to another host), streamed to a temp name and renamed when complete.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readHead, sniffKind } from '../http/file-sniff.js';
import type { GallerySource } from '../contracts/modelhub.contract.js';

/** Largest media file the gallery keeps (a long video at most). */
const MAX_MEDIA_BYTES = 512 * 1024 * 1024;

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/gif': '.gif',
  'image/avif': '.avif',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'video/quicktime': '.mov',
};

const SNIFFED: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', mp4: 'video/mp4', webm: 'video/webm' };

/** A media file saved into the gallery. */
export interface SavedMedia {
  /** Relative to the gallery root. */
  file: string;
  contentType: string;
  mediaType: 'image' | 'video';
  bytes: number;
}

/** The folder of a source inside a model's gallery. */
export function sourceFolder(modelId: string, source: GallerySource): string {
  return path.join(modelId, source === 'original' ? 'previews' : 'community');
}

/** The thumbnail path (relative) of a media file (relative). */
export function thumbPathOf(file: string): string {
  return file.replace(/\.[^./]+$/, '') + '.thumb.jpg';
}

/**
 * Fetch `url` into `<root>/<folder>/<id><ext>`, the extension from the answer's type (or the
 * bytes when the type says nothing). Throws with a message for the fetch record on failure.
 */
export async function downloadMedia(root: string, folder: string, id: number, url: string, hubType: string | null | undefined, signal?: AbortSignal): Promise<SavedMedia> {
  const res = await fetch(url, { signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(120_000)]) : AbortSignal.timeout(120_000), redirect: 'follow' });
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`media ${id}: the hub's CDN answered ${res.status}`);
  }
  const declared = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (declared.startsWith('text/') || declared.includes('json')) {
    await res.body.cancel().catch(() => undefined);
    throw new Error(`media ${id}: the hub's CDN sent ${declared} instead of an image or a video`);
  }
  const length = Number(res.headers.get('content-length') ?? NaN);
  if (length > MAX_MEDIA_BYTES) {
    await res.body.cancel().catch(() => undefined);
    throw new Error(`media ${id}: ${length} bytes is more than the gallery keeps`);
  }
  const dir = path.join(root, folder);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${id}.${crypto.randomBytes(4).toString('hex')}.part`);
  try {
    let bytes = 0;
    const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > MAX_MEDIA_BYTES) body.destroy(new Error(`media ${id}: larger than the gallery keeps`));
    });
    await pipeline(body, fs.createWriteStream(tmp));
    const head = await readHead(tmp);
    const sniffed = sniffKind(head);
    const contentType = EXTENSIONS[declared] ? declared : sniffed && SNIFFED[sniffed] ? SNIFFED[sniffed] : null;
    if (!contentType) throw new Error(`media ${id}: neither an image nor a video (${declared || 'no type'})`);
    // The hub's own `type` wins: its URLs and types have labelled videos as JPEG before.
    const mediaType = contentType.startsWith('video/') || hubType === 'video' ? 'video' : 'image';
    const file = path.join(folder, `${id}${EXTENSIONS[contentType]}`);
    await fsp.rename(tmp, path.join(root, file));
    return { file, contentType, mediaType, bytes };
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}
