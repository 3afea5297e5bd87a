import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../server/logging.js';
import { GalleryThumbs } from '../../../server/modelhub/gallery-thumbs.js';

const VIDEO = fileURLToPath(new URL('../../../resources/standin/video.mp4', import.meta.url));
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thumbs-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('gallery thumbnails', () => {
  it('shrinks an image to at most 320 px as JPEG', async () => {
    const source = path.join(dir, 'big.png');
    await sharp({ create: { width: 1200, height: 600, channels: 4, background: '#00000000' } }).png().toFile(source);
    const thumbs = new GalleryThumbs({ logger: silentLogger });
    expect(await thumbs.make(source, path.join(dir, 'big.thumb.jpg'), 'image')).toBe(true);
    const meta = await sharp(path.join(dir, 'big.thumb.jpg')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 160]);
  });

  it('takes a video first frame with ffmpeg', async () => {
    const thumbs = new GalleryThumbs({ logger: silentLogger });
    expect(await thumbs.make(VIDEO, path.join(dir, 'v.thumb.jpg'), 'video')).toBe(true);
    expect((await sharp(path.join(dir, 'v.thumb.jpg')).metadata()).format).toBe('jpeg');
  });

  it('makes no video thumbnail without ffmpeg, and draws a placeholder instead', async () => {
    const thumbs = new GalleryThumbs({ logger: silentLogger, ffmpegPath: path.join(dir, 'no-ffmpeg-here') });
    expect(await thumbs.make(VIDEO, path.join(dir, 'v.thumb.jpg'), 'video')).toBe(false);
    expect(fs.existsSync(path.join(dir, 'v.thumb.jpg'))).toBe(false);
    const placeholder = await thumbs.placeholder(dir);
    const meta = await sharp(placeholder).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 180]);
    expect(await thumbs.placeholder(dir)).toBe(placeholder);
  });
});
