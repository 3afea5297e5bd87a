import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../server/contracts/catalog.contract.js';
import { DownloadError } from '../../../server/downloads/download-errors.js';
import type { DownloadOptions, DownloadProgress, DownloadRequest } from '../../../server/downloads/download-options.js';
import { downloadFile } from '../../../server/downloads/file-download.js';
import { resolveSourceUrl } from '../../../server/catalog/source-urls.js';
import { startFakeFileServer, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { downloadError } from '../../helpers/download-errors.js';
import { freePort } from '../../helpers/ports.js';

let dir: string;
let servers: FakeFileServer[];

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const fast: DownloadOptions = { backoffBaseMs: 5, backoffMaxMs: 20 };

async function serve(...args: Parameters<typeof startFakeFileServer>): Promise<FakeFileServer> {
  const server = await startFakeFileServer(...args);
  servers.push(server);
  return server;
}

function request(url: string, over: Partial<DownloadRequest> = {}): DownloadRequest {
  return {
    url,
    partFile: path.join(dir, 'models', 'checkpoints', 'model.safetensors.part'),
    finalFile: path.join(dir, 'models', 'checkpoints', 'model.safetensors'),
    ...over,
  };
}


/** Start a throttled download and abort it once some bytes are in the part file. */
async function abortMidway(req: DownloadRequest, afterBytes: number): Promise<DownloadError> {
  const controller = new AbortController();
  return downloadError(
    downloadFile(req, {
      ...fast,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.bytesDownloaded >= afterBytes) controller.abort();
      },
    }),
  );
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  servers = [];
});

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('downloadFile', () => {
  it('downloads a file, checks its SHA-256 and only then puts it under its final name', async () => {
    const content = randomBytes(300 * 1024 + 17);
    const server = await serve({ content });
    const progress: DownloadProgress[] = [];
    const req = request(`${server.url}/file.bin`, { expectedSha256: sha(content).toUpperCase() });

    const result = await downloadFile(req, { ...fast, onProgress: (p) => progress.push(p) });

    expect(result).toEqual({ sha256: sha(content), bytes: content.length });
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
    expect(fs.existsSync(req.partFile)).toBe(false);
    expect(fs.existsSync(`${req.partFile}.meta.json`)).toBe(false);
    expect(progress.at(-1)).toMatchObject({ bytesDownloaded: content.length, bytesTotal: content.length });
    expect(server.requests[0]?.headers['accept-encoding']).toBe('identity');
  });

  it('resumes an aborted download with Range and If-Range, and the hash covers the whole file', async () => {
    const content = randomBytes(1024 * 1024);
    const server = await serve({ content, etag: '"abc123"', throttleBytesPerSec: 1024 * 1024 });
    const req = request(`${server.url}/file.bin`);

    const aborted = await abortMidway(req, 100 * 1024);
    expect(aborted.kind).toBe('aborted');
    const partSize = fs.statSync(req.partFile).size;
    expect(partSize).toBeGreaterThan(0);
    expect(partSize).toBeLessThan(content.length);
    expect(fs.existsSync(req.finalFile)).toBe(false);

    server.set({ throttleBytesPerSec: null });
    const result = await downloadFile({ ...req, expectedSha256: null }, fast);

    const resumed = server.requests.at(-1)!;
    expect(resumed.headers.range).toBe(`bytes=${partSize}-`);
    expect(resumed.headers['if-range']).toBe('"abc123"');
    expect(result.sha256).toBe(sha(content));
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
  });

  it('starts over from byte 0 when the remote file changed (ETag no longer matches)', async () => {
    const oldContent = randomBytes(1024 * 1024);
    const newContent = randomBytes(900 * 1024);
    const server = await serve({ content: oldContent, etag: '"v1"', throttleBytesPerSec: 1024 * 1024 });
    const req = request(`${server.url}/file.bin`);
    await abortMidway(req, 100 * 1024);
    const partSize = fs.statSync(req.partFile).size;

    server.set({ content: newContent, etag: '"v2"', throttleBytesPerSec: null });
    const result = await downloadFile(req, fast);

    expect(server.requests.at(-1)?.headers.range).toBe(`bytes=${partSize}-`);
    expect(server.requests.at(-1)?.headers['if-range']).toBe('"v1"');
    expect(result).toEqual({ sha256: sha(newContent), bytes: newContent.length });
    expect(fs.readFileSync(req.finalFile).equals(newContent)).toBe(true);
  });

  it('treats 416 on a part that is already complete as done', async () => {
    const content = randomBytes(64 * 1024);
    const server = await serve({ content, etag: '"done"' });
    const req = request(`${server.url}/file.bin`);
    fs.mkdirSync(path.dirname(req.partFile), { recursive: true });
    fs.writeFileSync(req.partFile, content);
    fs.writeFileSync(`${req.partFile}.meta.json`, JSON.stringify({ url: req.url, etag: '"done"', total: content.length, sha256: null }));

    const result = await downloadFile(req, fast);

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.range).toBe(`bytes=${content.length}-`);
    expect(result.sha256).toBe(sha(content));
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
  });

  it('retries after a mid-stream disconnect and continues from where it stopped', async () => {
    const content = randomBytes(512 * 1024);
    const server = await serve({ content, dropAfterBytes: 128 * 1024, dropTimes: 1 });
    const req = request(`${server.url}/file.bin`, { expectedSha256: sha(content) });

    const result = await downloadFile(req, fast);

    expect(result.sha256).toBe(sha(content));
    expect(server.requests).toHaveLength(2);
    const range = /^bytes=(\d+)-$/.exec(String(server.requests[1]?.headers.range));
    expect(Number(range?.[1])).toBeGreaterThan(0);
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
  });

  it('retries a 503 and succeeds; gives up on a 404 at once', async () => {
    const content = randomBytes(10_000);
    const flaky = await serve({ content, status: 503, statusTimes: 1 });
    expect((await downloadFile(request(`${flaky.url}/f`), fast)).sha256).toBe(sha(content));
    expect(flaky.requests).toHaveLength(2);

    const missing = await serve({ content, status: 404 });
    const error = await downloadError(downloadFile(request(`${missing.url}/f`), fast));
    expect(error.kind).toBe('not_found');
    expect(missing.requests).toHaveLength(1);
  });

  it('says which retry it waits for ("retrying 2 of 4") and why the last attempt failed, and stops once bytes flow', async () => {
    const content = randomBytes(10_000);
    const flaky = await serve({ content, status: 503, statusTimes: 2 });
    const seen: Array<{ attempt: number; of: number; reason: string } | undefined> = [];
    await downloadFile(request(`${flaky.url}/f`), { ...fast, maxRetries: 4, onProgress: (p) => seen.push(p.retry) });
    // The progress timer may repeat an entry while the backoff runs: compare the changes.
    const changes = seen.filter(Boolean).filter((r, i, all) => i === 0 || JSON.stringify(r) !== JSON.stringify(all[i - 1]));
    expect(changes).toEqual([
      { attempt: 1, of: 4, reason: expect.stringMatching(/503/) },
      { attempt: 2, of: 4, reason: expect.stringMatching(/503/) },
    ]);
    expect(seen.at(-1)).toBeUndefined();
  });

  it('deletes the part and reports hash_mismatch when the SHA-256 differs', async () => {
    const content = randomBytes(100 * 1024);
    const server = await serve({ content });
    const req = request(`${server.url}/file.bin`, { expectedSha256: 'ab'.repeat(32) });

    const error = await downloadError(downloadFile(req, fast));

    expect(error.kind).toBe('hash_mismatch');
    expect(error.message).toContain(sha(content));
    expect(fs.existsSync(req.partFile)).toBe(false);
    expect(fs.existsSync(`${req.partFile}.meta.json`)).toBe(false);
    expect(fs.existsSync(req.finalFile)).toBe(false);
  });

  it('turns a 401 into an auth error that names the missing token, without retrying', async () => {
    const hub = await serve({ content: randomBytes(10), requireToken: 'secret' });
    const error = await downloadError(downloadFile(request(`${hub.url}/api/download/models/1`, { source: 'modelhub' }), fast));
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.message).toContain('MODELHUB_API_KEY');
    expect(hub.requests).toHaveLength(1);

    const repo = await serve({ content: randomBytes(10), requireToken: 'hf', unauthorizedStatus: 403, errorCode: 'GatedRepo' });
    const gated = await downloadError(
      downloadFile(request(`${repo.url}/o/r/resolve/main/f`, { source: 'repohost', headers: { Authorization: 'Bearer wrong' } }), fast),
    );
    expect(gated.kind).toBe('license');
    expect(gated.message).toMatch(/accept the model's license/);
  });

  it('recognises a login page served instead of the file', async () => {
    const server = await serve({ html: true });
    const hub = await downloadError(downloadFile(request(`${server.url}/f`, { source: 'modelhub' }), fast));
    expect(hub.kind).toBe('auth');
    expect(hub.message).toMatch(/login page.*MODELHUB_API_KEY/);

    const unknown = await downloadError(downloadFile(request(`${server.url}/f`), fast));
    expect(unknown.kind).toBe('license');
    expect(unknown.message).toMatch(/login or license page/);
    expect(fs.existsSync(request('').finalFile)).toBe(false);
  });

  it('counts its retries as the UI does: five retries are "gave up after 5 retries", each announced as n of 5', async () => {
    const port = await freePort();
    const seen: string[] = [];
    const onProgress = (p: { retry?: { attempt: number; of: number } }) => {
      if (p.retry && seen.at(-1) !== `${p.retry.attempt} of ${p.retry.of}`) seen.push(`${p.retry.attempt} of ${p.retry.of}`);
    };
    const error = await downloadError(downloadFile(request(`http://127.0.0.1:${port}/f`), { ...fast, maxRetries: 5, onProgress }));
    expect(error.message).toMatch(/gave up after 5 retries\)$/);
    expect(seen).toEqual(['1 of 5', '2 of 5', '3 of 5', '4 of 5', '5 of 5']);
  });

  it('sends the token to the origin but never to the host it redirects to', async () => {
    const content = randomBytes(200 * 1024);
    const cdn = await serve({ content });
    const origin = await serve({ requireToken: 'hf_secret', redirectTo: cdn.url });
    const entry: CatalogEntry = {
      name: 'VAE',
      file: 'wan_2.1_vae.safetensors',
      dest: 'vae',
      size_gb: 0.25,
      tags: [],
      source: 'repohost',
      hosted_repo: 'Comfy-Org/Wan_2.1_ComfyUI_repackaged',
      repo_path: 'split_files/vae/wan_2.1_vae.safetensors',
    };
    const src = resolveSourceUrl(entry, {
      modelhubBaseUrl: origin.url,
      repohostBaseUrl: origin.url,
      modelhubApiKey: null,
      hubToken: 'hf_secret',
    });

    const result = await downloadFile(request(src.url, { headers: src.headers, source: src.source, expectedSha256: sha(content) }), fast);

    expect(result.sha256).toBe(sha(content));
    expect(origin.requests[0]?.url).toBe('/Comfy-Org/Wan_2.1_ComfyUI_repackaged/resolve/main/split_files/vae/wan_2.1_vae.safetensors');
    expect(origin.requests[0]?.headers.authorization).toBe('Bearer hf_secret');
    expect(cdn.requests).toHaveLength(1);
    expect(cdn.requests[0]?.url).toBe(origin.requests[0]?.url);
    expect(cdn.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('counts a stall as an error, retries it, then gives up with kind stalled', async () => {
    const server = await serve({ content: randomBytes(50_000), stallAfterBytes: 0 });
    const error = await downloadError(downloadFile(request(`${server.url}/f`), { ...fast, stallTimeoutMs: 150, maxRetries: 2 }));
    expect(error.kind).toBe('stalled');
    expect(server.requests).toHaveLength(3);
  });

  it('recovers from a stall once bytes flow again', async () => {
    const content = randomBytes(300 * 1024);
    const server = await serve({ content, stallAfterBytes: 64 * 1024, stallTimes: 1 });
    const result = await downloadFile(request(`${server.url}/f`), { ...fast, stallTimeoutMs: 150, maxRetries: 3 });
    expect(result.sha256).toBe(sha(content));
    expect(server.requests[1]?.headers.range).toMatch(/^bytes=\d+-$/);
  });

  it('checks free space before downloading', async () => {
    const content = randomBytes(10_000);
    const server = await serve({ content });
    const freeSpace = async () => 1000;

    const early = await downloadError(downloadFile(request(`${server.url}/f`, { expectedBytes: 5 * 1024 ** 3 }), { ...fast, freeSpace }));
    expect(early.kind).toBe('disk_full');
    expect(server.requests).toHaveLength(0);

    const afterHeaders = await downloadError(downloadFile(request(`${server.url}/f`), { ...fast, freeSpace }));
    expect(afterHeaders.kind).toBe('disk_full');
    expect(fs.existsSync(request('').finalFile)).toBe(false);
  });

  it('writes a file bigger than its write buffers intact, with chunked encoding and no size up front', async () => {
    // Past the writer's 16 MiB high-water mark and its 64 MiB sync interval.
    const content = randomBytes(80 * 1024 * 1024 + 5);
    const server = await serve({ content, chunked: true });
    const progress: DownloadProgress[] = [];
    const req = request(`${server.url}/big.bin`, { expectedSha256: sha(content) });

    const result = await downloadFile(req, { ...fast, onProgress: (p) => progress.push(p) });

    expect(result).toEqual({ sha256: sha(content), bytes: content.length });
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ bytesDownloaded: content.length, bytesTotal: null });
  });

  it('starts over when the server answers a resume with the whole file (no range support)', async () => {
    const content = randomBytes(1024 * 1024);
    const server = await serve({ content, throttleBytesPerSec: 1024 * 1024 });
    const req = request(`${server.url}/file.bin`);
    await abortMidway(req, 100 * 1024);
    const partSize = fs.statSync(req.partFile).size;
    expect(partSize).toBeGreaterThan(0);

    server.set({ throttleBytesPerSec: null, ignoreRange: true });
    const result = await downloadFile(req, fast);

    expect(server.requests.at(-1)?.headers.range).toBe(`bytes=${partSize}-`);
    expect(result).toEqual({ sha256: sha(content), bytes: content.length });
    expect(fs.readFileSync(req.finalFile).equals(content)).toBe(true);
  });

  it('gives up on a redirect loop without retrying it', async () => {
    const server = await serve({ content: randomBytes(10) });
    server.set({ redirectTo: server.url });
    const error = await downloadError(downloadFile(request(`${server.url}/f`), fast));
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/Too many redirects/);
    expect(server.requests).toHaveLength(6);
  });

  it('retries a refused connection, then reports it as a network error', async () => {
    const port = await freePort();
    const error = await downloadError(downloadFile(request(`http://127.0.0.1:${port}/f`), { ...fast, maxRetries: 1 }));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/ECONNREFUSED.*gave up after 1 retry\)/);
    expect(fs.existsSync(request('').finalFile)).toBe(false);
  });

  it('refuses a compressed body instead of writing a corrupt file', async () => {
    const server = await serve({ content: randomBytes(1000), contentEncoding: 'gzip' });
    const error = await downloadError(downloadFile(request(`${server.url}/f`), fast));
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/compressed \(Content-Encoding: gzip\)/);
    expect(server.requests).toHaveLength(1);
    expect(fs.existsSync(request('').finalFile)).toBe(false);
  });

  it('refuses a URL scheme it cannot download from', async () => {
    const error = await downloadError(downloadFile(request('ftp://127.0.0.1/f'), fast));
    expect(error.kind).toBe('http');
    expect(error.message).toMatch(/ftp/);
  });
});
