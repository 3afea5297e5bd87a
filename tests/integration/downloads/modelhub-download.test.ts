/**
 * Model hub entries download through the hub's own download URL, which answers 307 to a presigned
 * storage URL on another host (reference §3.6): the API key goes to the hub only, and because a
 * presigned URL expires, every retry and every resume (also after a restart) asks the hub again.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../server/contracts/catalog.contract.js';
import { catalogOf, hubEntry, sha256, waitFor, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileBehaviour, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { startFakeHub, type FakeHub } from '../../helpers/fake-hub-server.js';
import { downloadStatuses } from '../../helpers/fake-sse.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const KEY = 'hub-secret-key';
let dir: string;
let hub: FakeHub;
let storage: FakeFileServer;
let studio: TestStudio | null;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hub = await startFakeHub();
  hub.downloadToken = KEY;
  studio = null;
});

afterEach(async () => {
  await studio?.stop();
  await Promise.all([hub.close(), storage.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A storage host serving `content` only at presigned URLs, which the hub hands out for version 77. */
async function storageFor(content: Buffer, behaviour: Partial<FakeFileBehaviour> = {}): Promise<void> {
  storage = await startFakeFileServer({ content, signed: true, etag: '"r2-etag"', ...behaviour });
  hub.downloads.set('77', () => storage.sign('/bucket/77/style.safetensors'));
}

async function boot(entry: CatalogEntry): Promise<TestStudio> {
  writeCatalogs(dir, { models: catalogOf([]), loras: catalogOf([entry], 'loras') });
  studio = await startTestStudio({ dir, env: { MODELHUB_BASE_URL: hub.url, MODELHUB_API_KEY: KEY } });
  return studio;
}

async function statusOf(t: TestStudio, file: string): Promise<string | undefined> {
  const body = (await (await t.api('/api/admin/loras')).json()) as { categories: Array<{ models: Array<{ file: string; status: string }> }> };
  return body.categories.flatMap((c) => c.models).find((m) => m.file === file)?.status;
}

async function download(t: TestStudio, file: string): Promise<void> {
  const res = await t.api(`/api/admin/models/download/${file}`, { method: 'POST' });
  expect(res.status).toBe(200);
}

const hubCalls = () => hub.requests.filter((r) => r.url.startsWith('/api/download/models/'));
const signatureOf = (url: string) => new URL(url, 'http://x').searchParams.get('X-Amz-Signature');
const finalFile = () => path.join(dir, 'models', 'loras', 'style.safetensors');

/** Every storage request: no Authorization, a presigned URL. */
function expectNoTokenAtStorage(): void {
  expect(storage.requests.length).toBeGreaterThan(0);
  for (const request of storage.requests) {
    expect(request.headers.authorization).toBeUndefined();
    expect(JSON.stringify(request.headers)).not.toContain(KEY);
    expect(request.url).not.toContain(KEY);
  }
}

describe('model hub downloads', () => {
  it('go through the hub download URL with the key, and to the storage host without it', async () => {
    const content = randomBytes(200 * 1024);
    await storageFor(content);
    hub.downloads.set('77', (fileId) => (fileId === '4521' ? storage.sign('/bucket/77/fp16.safetensors') : null));
    const t = await boot(hubEntry('style.safetensors', '77', { size_gb: content.length / 1e9, sha256: sha256(content).toUpperCase(), modelhub_file_id: '4521' }));
    await download(t, 'style.safetensors');
    await waitFor(async () => (await statusOf(t, 'style.safetensors')) === 'present', 'the file to be present');

    expect(hubCalls()).toHaveLength(1);
    expect(hubCalls()[0]).toMatchObject({ url: '/api/download/models/77', search: '?fileId=4521' });
    expect(hubCalls()[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(storage.requests).toHaveLength(1);
    expect(storage.requests[0]?.url).toMatch(/^\/bucket\/77\/fp16\.safetensors\?.*X-Amz-Signature=sig1/);
    expectNoTokenAtStorage();
    expect(sha256(finalFile())).toBe(sha256(content));
  });

  it('resume after a dropped connection at a fresh link from the hub, with Range', async () => {
    const content = randomBytes(300 * 1024);
    // Each presigned URL serves one request: reusing the first one would be refused.
    await storageFor(content, { signatureUses: 1, dropAfterBytes: 100 * 1024, dropTimes: 1 });
    const t = await boot(hubEntry('style.safetensors', '77', { size_gb: content.length / 1e9, sha256: sha256(content) }));
    await download(t, 'style.safetensors');
    await waitFor(async () => (await statusOf(t, 'style.safetensors')) === 'present', 'the file to be present');

    expect(hubCalls()).toHaveLength(2);
    for (const call of hubCalls()) expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(storage.requests).toHaveLength(2);
    const [first, second] = storage.requests;
    expect(signatureOf(second!.url)).not.toBe(signatureOf(first!.url));
    const offset = Number(/^bytes=(\d+)-$/.exec(second?.headers.range ?? '')?.[1]);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(100 * 1024);
    expect(second?.headers['if-range']).toBe('"r2-etag"');
    expectNoTokenAtStorage();
    expect(sha256(finalFile())).toBe(sha256(content));
  });

  it('ask the hub again when the storage host says the link expired', async () => {
    const content = randomBytes(64 * 1024);
    await storageFor(content);
    let calls = 0;
    hub.downloads.set('77', () => {
      calls += 1;
      const url = storage.sign('/bucket/77/style.safetensors');
      // The first link is already stale when it arrives (a slow queue, a clock ahead).
      if (calls === 1) storage.expireSignatures();
      return url;
    });
    const t = await boot(hubEntry('style.safetensors', '77', { size_gb: content.length / 1e9, sha256: sha256(content) }));
    await download(t, 'style.safetensors');
    await waitFor(async () => (await statusOf(t, 'style.safetensors')) === 'present', 'the file to be present');

    expect(hubCalls()).toHaveLength(2);
    expect(storage.requests.map((r) => signatureOf(r.url))).toEqual(['sig1', 'sig2']);
    expectNoTokenAtStorage();
    expect((await downloadStatuses(t))['style.safetensors']).toMatchObject({ status: 'done', bytes_downloaded: content.length });
  });

  it('resume after a restart at a fresh link: the one from before has expired', async () => {
    const content = randomBytes(512 * 1024);
    await storageFor(content, { throttleBytesPerSec: 64 * 1024 });
    let t = await boot(hubEntry('style.safetensors', '77', { size_gb: content.length / 1e9, sha256: sha256(content) }));
    await download(t, 'style.safetensors');
    const part = `${finalFile()}.part`;
    await waitFor(() => fs.existsSync(part) && fs.statSync(part).size >= 64 * 1024, 'some bytes in the part file');
    await t.stop();
    studio = null;
    const kept = fs.statSync(part).size;
    expect(kept).toBeGreaterThan(0);

    storage.expireSignatures();
    storage.set({ throttleBytesPerSec: null });
    const before = storage.requests.length;
    studio = await startTestStudio({ dir, env: { MODELHUB_BASE_URL: hub.url, MODELHUB_API_KEY: KEY } });
    t = studio;
    await waitFor(async () => (await statusOf(t, 'style.safetensors')) === 'present', 'the resumed file to be present');

    expect(hubCalls()).toHaveLength(2);
    for (const call of hubCalls()) expect(call.headers.authorization).toBe(`Bearer ${KEY}`);
    const resumed = storage.requests.slice(before);
    expect(resumed).toHaveLength(1);
    expect(signatureOf(resumed[0]!.url)).toBe('sig2');
    expect(resumed[0]?.headers.range).toBe(`bytes=${kept}-`);
    expectNoTokenAtStorage();
    expect(sha256(finalFile())).toBe(sha256(content));
  });
});
