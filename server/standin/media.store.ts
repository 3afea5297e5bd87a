/**
 * The small real media files the stand-in writes as "generated" outputs and sends as previews.
 * They live in `resources/standin/` (64×64, made once with ffmpeg), so outputs open in any viewer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SHIPPED_ROOT } from '../config.js';

export interface StandinMedia {
  png: Buffer;
  jpeg: Buffer;
  mp4: Buffer;
  webm: Buffer;
  webp: Buffer;
  gif: Buffer;
}

/** `resources/standin/` of this checkout (or of the packaged app). */
export function standinResourcesDir(): string {
  return path.join(SHIPPED_ROOT, 'resources', 'standin');
}

/** Read every shipped media file once at startup. */
export function loadMedia(resourcesDir: string): StandinMedia {
  const read = (name: string) => fs.readFileSync(path.join(resourcesDir, name));
  return {
    png: read('image.png'),
    jpeg: read('preview.jpg'),
    mp4: read('video.mp4'),
    webm: read('video.webm'),
    webp: read('animated.webp'),
    gif: read('animated.gif'),
  };
}

/** Pixel size of a PNG, JPEG or GIF file's bytes, or null when the format is not recognised. */
export function imageSize(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'GIF') {
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  return null;
}

// Walk the JPEG segments to the first start-of-frame marker, which holds height then width.
function jpegSize(bytes: Buffer): { width: number; height: number } | null {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1] ?? 0;
    const length = bytes.readUInt16BE(offset + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    offset += 2 + length;
  }
  return null;
}
