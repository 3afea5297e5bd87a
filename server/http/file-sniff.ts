/**
 * What a file really is, from its first bytes rather than its name: an image input must be an
 * image before it reaches the engine, and ffmpeg only ever sees files that start like a video.
 */
import fsp from 'node:fs/promises';

/** Bytes enough for every signature below. */
const SNIFF_BYTES = 16;

type Kind = 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'tiff' | 'mp4' | 'webm' | 'avi' | 'mpeg';

function startsWith(head: Buffer, bytes: number[], at = 0): boolean {
  return head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The container of an image or video by its signature, or null. */
export function sniffKind(head: Buffer): Kind | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return 'gif';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return 'webp';
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('AVI '), 8)) return 'avi';
  if (startsWith(head, ascii('BM')) && head.length >= 14) return 'bmp';
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  // ISO base media (mp4, mov, m4v, 3gp): a box size then `ftyp`; QuickTime may start with other boxes.
  if (startsWith(head, ascii('ftyp'), 4) || startsWith(head, ascii('moov'), 4) || startsWith(head, ascii('mdat'), 4) || startsWith(head, ascii('wide'), 4)) return 'mp4';
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'webm';
  // MPEG program stream, or a transport stream (sync byte every 188 bytes; one is enough here).
  if (startsWith(head, [0x00, 0x00, 0x01, 0xba]) || startsWith(head, [0x47])) return 'mpeg';
  return null;
}

const IMAGES = new Set<Kind>(['png', 'jpeg', 'gif', 'webp', 'bmp', 'tiff']);
const VIDEOS = new Set<Kind>(['mp4', 'webm', 'avi', 'mpeg', 'gif']);

/** True when the bytes start like an image the engine can load. */
export function looksLikeImage(head: Buffer): boolean {
  const kind = sniffKind(head);
  return kind !== null && IMAGES.has(kind);
}

/** True when the bytes start like a video container ffmpeg may open. */
export function looksLikeVideo(head: Buffer): boolean {
  const kind = sniffKind(head);
  return kind !== null && VIDEOS.has(kind);
}

/** The first bytes of a file (fewer when it is shorter). */
export async function readHead(file: string, bytes = SNIFF_BYTES): Promise<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
