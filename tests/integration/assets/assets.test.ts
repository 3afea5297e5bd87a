/**
 * Assets against a real Studio: listings, uploads, thumbnails (images and video), the outputs ZIP
 * and deletes.
 *
 * Order matters (one Studio for the file): the listing tests expect the inputs folder empty, so
 * they run before the upload test that fills it; the later tests use the files beforeAll planted.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Thumbnails } from '../../../server/assets/thumbnails.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

/** ffmpeg and unzip are test needs (`.ci/run` installs both): without one, its test fails, never skips. */
function need(tool: string): void {
  expect(spawnSync(tool, ['-version']).error, `${tool} is needed for this test (\`.ci/run\` installs it)`).toBeUndefined();
}
let t: TestStudio;
let out: string;
let scratch: string;

interface Listing {
  files: Array<Record<string, unknown>>;
  studio_jobs: Array<Record<string, unknown>>;
  total_size: number;
}

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#3366cc' } }).png().toBuffer();

/** Write a file and give it a modification time `age` seconds in the past. */
function put(rel: string, data: Buffer | string, age: number): void {
  const file = path.join(out, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  const when = new Date(Date.now() - age * 1000);
  fs.utimesSync(file, when, when);
}

function video(file: string): Buffer {
  // Without ffmpeg (the thumbnail test then fails and says why) the listing tests still get a file.
  if (spawnSync('ffmpeg', ['-version']).error) return Buffer.from('not really a video');
  spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=5', '-frames:v', '5', '-c:v', 'mpeg4', '-y', file]);
  return fs.readFileSync(file);
}

const post = (p: string, body: unknown) => t.api(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  t = await startTestStudio();
  out = path.join(t.dir, 'assets', 'output');
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  const image = await png(800, 600);
  put('job-video/final/out.mp4', video(path.join(scratch, 'v.mp4')), 50);
  put('job-video/preview/p1.png', image, 60);
  put('job-video/preview/p2.png', image, 59);
  put('job-video/intermediate/i1.png', image, 58);
  put('job-gallery/final/a.png', image, 30);
  put('job-gallery/final/b.png', image, 20);
  put('job-gallery/.incomplete', '', 20);
  put('job-empty/.incomplete', '', 5);
  put('loose.png', image, 10);
  put('misc/sub/deep.webp', await sharp(image).webp().toBuffer(), 1);
  put('notes.txt', 'hello', 40);
  put('.hidden.png', image, 0);
  fs.writeFileSync(path.join(t.dir, 'secret.txt'), 'outside the asset roots');
});

afterAll(async () => {
  await t.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('asset listings', () => {
  it('lists outputs: loose media newest first, job folders as groups with every spec field', async () => {
    const res = await t.api('/api/admin/assets/outputs');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Listing;
    expect(body.files.map((f) => f.path)).toEqual(['misc/sub/deep.webp', 'loose.png']);
    expect(body.files[0]).toMatchObject({ filename: 'deep.webp', subfolder: 'misc/sub', type: 'image' });
    expect(Object.keys(body.files[1]!).sort()).toEqual(['filename', 'modified', 'path', 'size', 'subfolder', 'type']);
    expect(typeof body.files[1]!.modified).toBe('number');

    expect(body.studio_jobs.map((g) => g.folder)).toEqual(['job-empty', 'job-gallery', 'job-video']);
    const [empty, gallery, job] = body.studio_jobs;
    for (const group of body.studio_jobs) {
      for (const key of ['folder', 'folder_path', 'total_size', 'modified', 'incomplete', 'type', 'video_count', 'image_count', 'preview_count', 'intermediate_count', 'thumbnail']) {
        expect(group).toHaveProperty(key);
      }
    }
    expect(job).toMatchObject({
      type: 'studio_job',
      incomplete: false,
      video_count: 1,
      image_count: 0,
      preview_count: 2,
      intermediate_count: 1,
      thumbnail: { filename: 'p1.png', subfolder: 'job-video/preview' },
      folder_path: path.join(out, 'job-video'),
    });
    expect((job!.video as Record<string, unknown>).path).toBe('job-video/final/out.mp4');
    expect((job!.previews as unknown[]).length).toBe(2);
    expect((job!.intermediates as Array<{ path: string }>)[0]?.path).toBe('job-video/intermediate/i1.png');
    expect(gallery).toMatchObject({ type: 'studio_gallery', incomplete: true, image_count: 2, video_count: 0, thumbnail: { filename: 'a.png', subfolder: 'job-gallery/final' } });
    expect((gallery!.images as unknown[]).length).toBe(2);
    expect(gallery!.video).toBeUndefined();
    expect(empty).toMatchObject({ type: 'studio_gallery', incomplete: true, thumbnail: null, total_size: 0 });

    const onDisk = (rel: string) => fs.statSync(path.join(out, rel)).size;
    const everything = ['job-video/final/out.mp4', 'job-video/preview/p1.png', 'job-video/preview/p2.png', 'job-video/intermediate/i1.png', 'job-gallery/final/a.png', 'job-gallery/final/b.png', 'loose.png', 'misc/sub/deep.webp', 'notes.txt'];
    expect(body.total_size).toBe(everything.reduce((sum, rel) => sum + onDisk(rel), 0));
  });

  it('answers 400 for an unknown asset type and lists inputs without groups', async () => {
    const bad = await t.api('/api/admin/assets/models');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/inputs or outputs/);
    expect(await (await t.api('/api/admin/assets/inputs')).json()).toEqual({ files: [], studio_jobs: [], total_size: 0 });
  });
});

describe('uploads', () => {
  it('stores inputs under unique names and reports failed files per item', async () => {
    const form = new FormData();
    const image = await png(10, 10);
    form.append('files', new Blob([image]), 'photo.png');
    form.append('files', new Blob([image]), 'photo.png');
    form.append('files', new Blob(['text']), 'notes.txt');
    form.append('files', new Blob([]), 'empty.jpg');
    form.append('files', new Blob([image]), 'café.png');
    const res = await t.api('/api/admin/assets/upload-inputs', { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { uploaded: string[]; errors: string[] };
    expect(body.uploaded).toEqual(['photo.png', 'photo_1.png', 'café.png']);
    expect(body.errors).toEqual(['notes.txt: unsupported file type (images and videos only)', 'empty.jpg: the file is empty']);
    expect(fs.readFileSync(path.join(t.dir, 'assets', 'input', 'photo_1.png'))).toEqual(image);
    const inputs = (await (await t.api('/api/admin/assets/inputs')).json()) as Listing;
    expect(inputs.files.map((f) => f.filename).sort()).toEqual(['café.png', 'photo.png', 'photo_1.png']);
    const events = (await (await t.api('/api/admin/events?types=assets.uploaded')).json()) as Array<{ data: { files: string[] } }>;
    expect(events.at(-1)?.data.files).toEqual(['photo.png', 'photo_1.png', 'café.png']);
  });
});

describe('thumbnails', () => {
  it('makes a small JPEG of an image once and serves it from the cache', async () => {
    const url = `/api/admin/assets/thumbnail?type=outputs&path=${encodeURIComponent('job-video/preview/p1.png')}`;
    const res = await t.api(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 240]);
    const cached = path.join(t.dir, '.thumbs', 'outputs', 'job-video', 'preview', 'p1.png.jpg');
    const first = fs.statSync(cached).mtimeMs;
    expect((await t.api(url)).status).toBe(200);
    expect(fs.statSync(cached).mtimeMs).toBe(first);
  });

  it('makes a thumbnail of a video from its first frame', async () => {
    need('ffmpeg');
    const res = await t.api(`/api/admin/assets/thumbnail?type=outputs&path=${encodeURIComponent('job-video/final/out.mp4')}`);
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 180]);
  });

  it('refuses traversal, non-media and missing files', async () => {
    expect((await t.api('/api/admin/assets/thumbnail?type=outputs&path=../secret.txt')).status).toBe(400);
    expect((await t.api('/api/admin/assets/thumbnail?type=outputs&path=notes.txt')).status).toBe(404);
    expect((await t.api('/api/admin/assets/thumbnail?type=outputs&path=gone.png')).status).toBe(404);
    expect((await t.api('/api/admin/assets/thumbnail?type=models&path=a.png')).status).toBe(400);
  });

  it('turns video thumbnails off, with one log line, when ffmpeg is missing', async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => warnings.push(message) };
    const thumbs = new Thumbnails({ cacheDir: path.join(scratch, 'thumbs'), logger, ffmpegPath: path.join(scratch, 'no-ffmpeg-here') });
    const source = path.join(out, 'job-video', 'final', 'out.mp4');
    for (let i = 0; i < 2; i++) {
      await expect(thumbs.get('outputs', source, 'job-video/final/out.mp4')).rejects.toMatchObject({ kind: 'not_found', message: expect.stringMatching(/need ffmpeg/) });
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ffmpeg was not found.*video thumbnails are off/);
    // Images still work without ffmpeg.
    expect(await thumbs.get('outputs', path.join(out, 'loose.png'), 'loose.png')).toBe(path.join(scratch, 'thumbs', 'outputs', 'loose.png.jpg'));
  });

  it('serves an asset file with Range support', async () => {
    const res = await t.api('/api/admin/assets/file?type=outputs&path=loose.png', { headers: { Range: 'bytes=0-7' } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(fs.readFileSync(path.join(out, 'loose.png')).subarray(0, 8));
    expect((await t.api('/api/admin/assets/file?type=outputs&path=..%2Fsecret.txt')).status).toBe(400);
  });
});

describe('outputs ZIP', () => {
  it('streams every output with its structure, media stored and other files deflated', async () => {
    need('unzip');
    for (const route of ['/api/admin/outputs-zip', '/api/admin/assets/download']) {
      const res = await t.api(route);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/zip');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="outputs_\d{8}-\d{6}\.zip"$/);
      const zipFile = path.join(scratch, 'outputs.zip');
      fs.writeFileSync(zipFile, Buffer.from(await res.arrayBuffer()));
      const listing = spawnSync('unzip', ['-Z1', zipFile], { encoding: 'utf8' });
      expect(listing.status).toBe(0);
      expect(listing.stdout.trim().split('\n').sort()).toEqual(
        [
          'job-gallery/final/a.png',
          'job-gallery/final/b.png',
          'job-video/final/out.mp4',
          'job-video/intermediate/i1.png',
          'job-video/preview/p1.png',
          'job-video/preview/p2.png',
          'loose.png',
          'misc/sub/deep.webp',
          'notes.txt',
        ].sort(),
      );
      const verbose = spawnSync('unzip', ['-v', zipFile], { encoding: 'utf8' }).stdout;
      expect(verbose).toMatch(/\sStored\s.*job-video\/final\/out\.mp4/);
      expect(verbose).toMatch(/\sStored\s.*loose\.png/);
      expect(verbose).toMatch(/\sDefl:N\s.*notes\.txt/);
      const extracted = spawnSync('unzip', ['-p', zipFile, 'job-video/final/out.mp4']).stdout;
      expect(extracted).toEqual(fs.readFileSync(path.join(out, 'job-video', 'final', 'out.mp4')));
    }
  });

  it('answers 404 when the output directory is missing', async () => {
    const moved = `${out}.away`;
    fs.renameSync(out, moved);
    try {
      const res = await t.api('/api/admin/outputs-zip');
      expect(res.status).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/output directory/);
    } finally {
      fs.renameSync(moved, out);
    }
  });
});

describe('deletes', () => {
  it('applies the path rules: traversal and absolute paths refused, nested folders refused, job folders allowed', async () => {
    expect((await t.api('/api/admin/assets/thumbnail?type=outputs&path=loose.png')).status).toBe(200);
    const thumb = path.join(t.dir, '.thumbs', 'outputs', 'loose.png.jpg');
    expect(fs.existsSync(thumb)).toBe(true);
    const attempts = ['../secret.txt', 'job-video/../../secret.txt', '/etc/passwd', '..', 'job-video\\..\\..\\secret.txt', '', 'job-video/final', 'missing.png', 'C:/Windows/win.ini'];
    const res = await post('/api/admin/assets/delete', { type: 'outputs', files: [...attempts, 'job-video/final/out.mp4', 'job-gallery', 'loose.png'] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { deleted: string[]; errors: string[] };
    expect(body.deleted).toEqual(['job-video/final/out.mp4', 'job-gallery', 'loose.png']);
    expect(body.errors).toEqual([
      '../secret.txt: path traversal ("..") is not allowed',
      'job-video/../../secret.txt: path traversal ("..") is not allowed',
      '/etc/passwd: absolute paths are not allowed',
      '..: path traversal ("..") is not allowed',
      'job-video\\..\\..\\secret.txt: path traversal ("..") is not allowed',
      ': empty path',
      'job-video/final: nested directories cannot be deleted (delete the files inside, or the whole job folder)',
      'missing.png: not found',
      'C:/Windows/win.ini: absolute paths are not allowed',
    ]);
    expect(fs.existsSync(path.join(t.dir, 'secret.txt'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'job-gallery'))).toBe(false);
    expect(fs.existsSync(path.join(out, 'job-video', 'final'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'job-video', 'final', 'out.mp4'))).toBe(false);
    const events = (await (await t.api('/api/admin/events?types=assets.deleted')).json()) as Array<{ data: { files: string[]; type: string } }>;
    expect(events.at(-1)?.data).toMatchObject({ type: 'outputs', files: body.deleted });
    // The cached thumbnail of a deleted file goes with it.
    expect(fs.existsSync(thumb)).toBe(false);

    const inputs = await post('/api/admin/assets/delete', { type: 'inputs', files: ['photo.png'] });
    expect(await inputs.json()).toEqual({ deleted: ['photo.png'], errors: [] });
    expect((await post('/api/admin/assets/delete', { type: 'models', files: [] })).status).toBe(400);
    expect((await post('/api/admin/assets/delete', { type: 'inputs' })).status).toBe(400);
  });
});
