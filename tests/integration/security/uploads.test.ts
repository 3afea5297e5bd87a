/**
 * Uploads: an image input is checked by its bytes (a text file named `.png` never reaches the
 * engine), files stream to disk rather than memory (a 600 MB body is refused with 413 while the
 * server's memory stays flat), temporary files do not outlive their request, and two uploads of
 * one name at once both land, each under its own name.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_PNG as SAMPLE_PNG_FILE } from '../../helpers/runner.js';

const SAMPLE_PNG = fs.readFileSync(SAMPLE_PNG_FILE);
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => t.stop());

const tmpUploads = () => path.join(t.dir, 'tmp', 'uploads');

function form(field: string, name: string, bytes: Buffer | string): FormData {
  const body = new FormData();
  body.append(field, new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)]), name);
  return body;
}

describe('image inputs are checked by their bytes', () => {
  it('refuses a text file named .png on upload-image with 400 {detail}, before the engine is asked', async () => {
    // The engine is not running: had the file gone on, the answer would be the 500 of a failed upload.
    const res = await t.api('/api/run/upload-image', { method: 'POST', body: form('file', 'x.png', 'hello, I am text') });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/not an image/);
  });

  it('refuses it as the input_image of execute', async () => {
    const body = form('input_image', 'photo.png', 'not a picture at all');
    body.append('params', '{}');
    const res = await t.api('/api/run/image-filter/execute', { method: 'POST', body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/input_image.*not an image/);
  });

  it('lists it as an error in upload-inputs and stores only the real image', async () => {
    const body = new FormData();
    body.append('files', new Blob(['just text']), 'fake.png');
    body.append('files', new Blob([new Uint8Array(SAMPLE_PNG)]), 'real.png');
    const res = await t.api('/api/admin/assets/upload-inputs', { method: 'POST', body });
    expect(res.status).toBe(200);
    const result = (await res.json()) as { uploaded: string[]; errors: string[] };
    expect(result.uploaded).toEqual(['real.png']);
    expect(result.errors).toEqual([expect.stringMatching(/^fake\.png: .*not an image/) as string]);
    expect(fs.existsSync(path.join(t.studio.config.paths.assetsInput, 'fake.png'))).toBe(false);
    expect(fs.readFileSync(path.join(t.studio.config.paths.assetsInput, 'real.png')).equals(SAMPLE_PNG)).toBe(true);
    await until(() => fs.readdirSync(tmpUploads()).length === 0, 'temporary uploads removed');
  });
});

describe('large and aborted uploads', () => {
  /** Send `total` bytes of multipart body in 1 MiB chunks; resolve with the status once answered. */
  function streamUpload(pathname: string, total: number, abortAfter?: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const boundary = 'studio-test-boundary';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
      const req = http.request(`${t.url}${pathname}`, {
        method: 'POST',
        headers: { 'X-API-Key': t.apiKey, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
      let answered = false;
      req.on('response', (res) => {
        answered = true;
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (err) => (answered || abortAfter !== undefined ? resolve(0) : reject(err)));
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let sent = 0;
      req.write(Buffer.concat([head, SAMPLE_PNG]));
      const pump = () => {
        while (sent < total && !answered && !req.destroyed) {
          if (abortAfter !== undefined && sent >= abortAfter) {
            req.destroy();
            setTimeout(() => resolve(0), 300);
            return;
          }
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!answered && !req.destroyed) req.end(`\r\n--${boundary}--\r\n`);
      };
      pump();
    });
  }

  it('answers a 600 MB upload with 413, streaming it to a temporary file instead of memory', async () => {
    // Watched rather than measured as RSS: the process's RSS also holds this test's own sending
    // buffers and moves with the garbage collector, so it cannot tell the two storages apart.
    const dir = tmpUploads();
    fs.mkdirSync(dir, { recursive: true });
    let largest = 0;
    const watcher = fs.watch(dir, (_event, name) => {
      if (!name) return;
      try {
        largest = Math.max(largest, fs.statSync(path.join(dir, String(name))).size);
      } catch {
        // Removed already (the upload was refused).
      }
    });
    const status = await streamUpload('/api/run/upload-image', 600 * 1024 * 1024).finally(() => watcher.close());
    expect(status).toBe(413);
    // Memory storage would write nothing there; disk storage fills a temporary file up to the limit.
    expect(largest).toBeGreaterThan(1024 * 1024);
    await until(() => fs.readdirSync(tmpUploads()).length === 0, 'temporary uploads removed');
  }, 60_000);

  it('survives an upload aborted midway and leaves no temporary file', async () => {
    await streamUpload('/api/admin/assets/upload-inputs', 100 * 1024 * 1024, 8 * 1024 * 1024);
    await until(() => fs.readdirSync(tmpUploads()).length === 0, 'temporary uploads removed');
    expect((await t.api('/api/health')).status).toBe(200);
  });
});

describe('form fields an attacker chooses', () => {
  const routes = ['/api/run/image-filter/execute', '/api/run/image-filter/build', '/api/admin/presets/any/run', '/api/run/upload-image', '/api/admin/assets/upload-inputs', '/api/admin/models/import', '/api/admin/presets/import', '/api/admin/workflows/import'];

  it('refuses a bracketed field name (an array of 4 294 967 295 items) with 400 on every upload route, and keeps serving', async () => {
    for (const route of routes) {
      const body = new FormData();
      body.append('x[4294967294]', 'a');
      body.append('params', '{}');
      const res = await t.api(route, { method: 'POST', body });
      expect(res.status, route).toBe(400);
      expect(((await res.json()) as { detail: string }).detail, route).toMatch(/field .*x\[4294967294\]/);
    }
    const nested = new FormData();
    nested.append('params[a][b][c]', '1');
    expect((await t.api('/api/run/image-filter/build', { method: 'POST', body: nested })).status).toBe(400);
    expect((await t.api('/api/health')).status).toBe(200);
  });

  it('caps how many fields and parts a form may have, and how long a name may be', async () => {
    for (const route of routes) {
      const many = new FormData();
      for (let i = 0; i < 5000; i++) many.append(`f${i}`, 'v');
      const res = await t.api(route, { method: 'POST', body: many });
      expect(res.status, route).toBe(400);
      expect(((await res.json()) as { detail: string }).detail, route).toMatch(/Too many (fields|parts)/);
    }
    const long = new FormData();
    long.append('n'.repeat(10_000), 'v');
    const res = await t.api('/api/run/image-filter/build', { method: 'POST', body: long });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/Field name too long/);
  });
});

describe('two uploads of the same name at once', () => {
  it('keeps both, each under its own name with its own bytes', async () => {
    // The image goes on to the engine: this one Studio runs the stand-in.
    const withEngine = await startTestStudio({ startEngine: true });
    try {
      await withEngine.studio.engineReady();
      const sharp = (await import('sharp')).default;
      const red = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } }).png().toBuffer();
      const blue = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00f' } }).png().toBuffer();
      const answers = await Promise.all(
        [red, blue].map(async (bytes) => {
          const res = await withEngine.api('/api/run/upload-image', { method: 'POST', body: form('file', 'same.png', bytes) });
          return { status: res.status, body: (await res.json()) as { filename: string } };
        }),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      const [first, second] = answers.map((a) => a.body.filename);
      expect(first).not.toBe(second);
      const input = withEngine.studio.config.paths.assetsInput;
      expect(fs.readFileSync(path.join(input, first!)).equals(red)).toBe(true);
      expect(fs.readFileSync(path.join(input, second!)).equals(blue)).toBe(true);
    } finally {
      await withEngine.stop();
    }
  });
});
