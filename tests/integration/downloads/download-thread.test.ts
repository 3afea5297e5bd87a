/**
 * `downloadInThread` against a real fake file server: the download runs on a worker thread
 * (started from the TypeScript sources through the tsx bootstrap) and its result, progress,
 * errors and abort behave like `downloadFile`'s; downloads in a row and at once are each verified
 * on their own.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { downloadInThread, serializeDownloadError } from '../../../server/downloads/download-thread.js';
import { DownloadError } from '../../../server/downloads/download-errors.js';
import type { DownloadProgress, DownloadRequest } from '../../../server/downloads/download-options.js';
import { startFakeFileServer, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { downloadError } from '../../helpers/download-errors.js';

let dir: string;
let servers: FakeFileServer[];

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const fast = { backoffBaseMs: 5, backoffMaxMs: 20 };

async function serve(...args: Parameters<typeof startFakeFileServer>): Promise<FakeFileServer> {
  const server = await startFakeFileServer(...args);
  servers.push(server);
  return server;
}

function request(url: string, over: Partial<DownloadRequest> = {}): DownloadRequest {
  return {
    url,
    partFile: path.join(dir, 'models', 'loras', 'model.safetensors.part'),
    finalFile: path.join(dir, 'models', 'loras', 'model.safetensors'),
    ...over,
  };
}


beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  servers = [];
});

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('downloadInThread', () => {
  it('downloads byte-exact on a worker thread and reports increasing progress', async () => {
    // Throttled to ~1 s so the 250 ms progress tick fires while bytes are still arriving.
    const content = randomBytes(1024 * 1024 + 321);
    const server = await serve({ content, throttleBytesPerSec: 1024 * 1024 });
    const req = request(`${server.url}/file.bin`, { expectedSha256: sha(content) });
    const progress: DownloadProgress[] = [];

    const result = await downloadInThread(req, { ...fast, onProgress: (p) => progress.push(p) });

    expect(result).toEqual({ sha256: sha(content), bytes: content.length });
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
    expect(fs.existsSync(req.partFile)).toBe(false);
    expect(fs.existsSync(`${req.partFile}.meta.json`)).toBe(false);
    const bytes = progress.map((p) => p.bytesDownloaded);
    expect(bytes.some((b) => b > 0 && b < content.length)).toBe(true);
    for (let i = 1; i < bytes.length; i += 1) expect(bytes[i]).toBeGreaterThanOrEqual(bytes[i - 1]!);
    expect(progress.at(-1)).toMatchObject({ bytesDownloaded: content.length, bytesTotal: content.length });
  });

  it('rejects with hash_mismatch and removes the part and its sidecar', async () => {
    const content = randomBytes(200 * 1024);
    const server = await serve({ content });
    const req = request(`${server.url}/file.bin`, { expectedSha256: 'cd'.repeat(32) });

    const error = await downloadError(downloadInThread(req, fast));

    expect(error.kind).toBe('hash_mismatch');
    expect(error.message).toContain(sha(content));
    expect(fs.existsSync(req.partFile)).toBe(false);
    expect(fs.existsSync(`${req.partFile}.meta.json`)).toBe(false);
    expect(fs.existsSync(req.finalFile)).toBe(false);
  });

  it('keeps the kind and status of a 404', async () => {
    const server = await serve({ content: randomBytes(100), status: 404 });

    const error = await downloadError(downloadInThread(request(`${server.url}/gone`), fast));

    expect(error.kind).toBe('not_found');
    expect(error.status).toBe(404);
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('turns a 401 into an auth error that names the token setting', async () => {
    const server = await serve({ content: randomBytes(100), requireToken: 'secret' });

    const error = await downloadError(downloadInThread(request(`${server.url}/api/download/models/7`, { source: 'modelhub' }), fast));

    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.message).toContain('MODELHUB_API_KEY');

    const named = await downloadError(
      downloadInThread(request(`${server.url}/o/r/resolve/main/f`, { source: 'repohost', tokenName: 'MY_HUB_TOKEN' }), fast),
    );
    expect(named.kind).toBe('auth');
    expect(named.message).toContain('MY_HUB_TOKEN');
  });

  it('aborts mid-download keeping the part and sidecar, and a second call resumes with Range', async () => {
    const content = randomBytes(1024 * 1024);
    const server = await serve({ content, etag: '"t1"', throttleBytesPerSec: 256 * 1024 });
    const req = request(`${server.url}/file.bin`, { expectedSha256: sha(content) });
    const controller = new AbortController();

    const aborted = await downloadError(
      downloadInThread(req, {
        ...fast,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.bytesDownloaded > 0) controller.abort();
        },
      }),
    );

    expect(aborted.kind).toBe('aborted');
    expect(fs.existsSync(`${req.partFile}.meta.json`)).toBe(true);
    const partSize = fs.statSync(req.partFile).size;
    expect(partSize).toBeGreaterThan(0);
    expect(partSize).toBeLessThan(content.length);
    expect(fs.existsSync(req.finalFile)).toBe(false);
    expect(server.requests).toHaveLength(1);

    server.set({ throttleBytesPerSec: null });
    const result = await downloadInThread(req, fast);

    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers.range).toBe(`bytes=${partSize}-`);
    expect(server.requests[1]?.headers['if-range']).toBe('"t1"');
    expect(result).toEqual({ sha256: sha(content), bytes: content.length });
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
    expect(fs.existsSync(req.partFile)).toBe(false);
    expect(fs.existsSync(`${req.partFile}.meta.json`)).toBe(false);
  });

  it('rejects at once with aborted when the signal is already aborted', async () => {
    const server = await serve({ content: randomBytes(1000) });
    const controller = new AbortController();
    controller.abort();

    const error = await downloadError(downloadInThread(request(`${server.url}/f`), { ...fast, signal: controller.signal }));

    expect(error.kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
    expect(fs.existsSync(path.join(dir, 'models'))).toBe(false);
  });
});

describe('downloads one after another and at once', () => {
  it('verifies each file against its own hash', async () => {
    const first = randomBytes(300 * 1024);
    const second = randomBytes(200 * 1024);
    const server = await serve({ content: first });
    const a = request(`${server.url}/a.bin`, { partFile: path.join(dir, 'a.part'), finalFile: path.join(dir, 'a.bin'), expectedSha256: sha(first) });
    const b = request(`${server.url}/b.bin`, { partFile: path.join(dir, 'b.part'), finalFile: path.join(dir, 'b.bin'), expectedSha256: sha(first) });

    expect(await downloadInThread(a, fast)).toEqual({ sha256: sha(first), bytes: first.length });
    server.set({ content: second });
    // The first file's hash on the second file: the next download must hash what arrived.
    const mismatch = await downloadError(downloadInThread(b, fast));
    expect(mismatch.kind).toBe('hash_mismatch');
    expect(mismatch.message).toContain(sha(second));
    expect(fs.existsSync(b.finalFile)).toBe(false);

    expect(await downloadInThread({ ...b, expectedSha256: sha(second) }, fast)).toEqual({ sha256: sha(second), bytes: second.length });
    expect(fs.readFileSync(b.finalFile).equals(second)).toBe(true);
    expect(fs.readFileSync(a.finalFile).equals(first)).toBe(true);
  });

  it('a failed and an aborted download leave the next one to run and resume', async () => {
    const content = randomBytes(1024 * 1024);
    const missing = await serve({ content: randomBytes(10), status: 404 });
    const server = await serve({ content, throttleBytesPerSec: 256 * 1024 });
    const req = request(`${server.url}/file.bin`, { expectedSha256: sha(content) });

    expect((await downloadError(downloadInThread(request(`${missing.url}/gone`), fast))).kind).toBe('not_found');
    const controller = new AbortController();
    const aborted = await downloadError(
      downloadInThread(req, { ...fast, signal: controller.signal, onProgress: (p) => p.bytesDownloaded > 0 && controller.abort() }),
    );
    expect(aborted.kind).toBe('aborted');

    server.set({ throttleBytesPerSec: null });
    const progress: DownloadProgress[] = [];
    expect(await downloadInThread(req, { ...fast, onProgress: (p) => progress.push(p) })).toEqual({ sha256: sha(content), bytes: content.length });
    expect(server.requests[1]?.headers.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(progress.at(-1)).toMatchObject({ bytesDownloaded: content.length });
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
  });

  it('runs downloads at once', async () => {
    const content = randomBytes(256 * 1024);
    const server = await serve({ content, throttleBytesPerSec: 512 * 1024 });
    const reqs = ['x', 'y'].map((name) =>
      request(`${server.url}/${name}`, { partFile: path.join(dir, `${name}.part`), finalFile: path.join(dir, name), expectedSha256: sha(content) }),
    );

    const results = await Promise.all(reqs.map((req) => downloadInThread(req, fast)));

    expect(results.map((r) => r.sha256)).toEqual([sha(content), sha(content)]);
  });
});

describe('serializeDownloadError', () => {
  it('turns anything that is not a DownloadError into a network error with its message', () => {
    expect(serializeDownloadError(new TypeError('socket hang up'))).toEqual({ kind: 'network', message: 'socket hang up', retryable: false });
    expect(serializeDownloadError('plain text')).toEqual({ kind: 'network', message: 'plain text', retryable: false });
  });

  it('keeps kind, status, retryable and retryAfterMs of a DownloadError', () => {
    const error = new DownloadError('http', 'The server answered 503', { status: 503, retryable: true, retryAfterMs: 1500 });
    expect(serializeDownloadError(error)).toEqual({
      kind: 'http',
      message: 'The server answered 503',
      status: 503,
      retryable: true,
      retryAfterMs: 1500,
    });
  });
});
