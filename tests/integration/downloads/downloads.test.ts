import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../server/contracts/catalog.contract.js';
import { catalogOf, hubEntry, repoEntry, sha256, waitFor, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileBehaviour, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { downloadStatuses, readStatusEvents } from '../../helpers/fake-sse.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let dir: string;
let servers: FakeFileServer[];
let studio: TestStudio | null;

interface LiveEntry extends CatalogEntry {
  status: string;
  on_disk_bytes: number;
}

async function serve(behaviour: Partial<FakeFileBehaviour>): Promise<FakeFileServer> {
  const server = await startFakeFileServer(behaviour);
  servers.push(server);
  return server;
}

/** Boot Studio on `dir` with these catalogs, the hosts pointed at `origin`. */
async function boot(models: CatalogEntry[], origin: FakeFileServer, env: Record<string, string> = {}, loras: CatalogEntry[] = []): Promise<TestStudio> {
  writeCatalogs(dir, { models: catalogOf(models), loras: catalogOf(loras, 'loras') });
  studio = await startTestStudio({ dir, env: { REPOHOST_BASE_URL: origin.url, MODELHUB_BASE_URL: origin.url, ...env } });
  return studio;
}

async function entryOf(t: TestStudio, file: string, catalog: 'models' | 'loras' = 'models'): Promise<LiveEntry> {
  const body = (await (await t.api(`/api/admin/${catalog}`)).json()) as { categories: Array<{ models: LiveEntry[] }> };
  const entry = body.categories.flatMap((c) => c.models).find((m) => m.file === file);
  if (!entry) throw new Error(`${file} not in the ${catalog} listing`);
  return entry;
}

const post = (t: TestStudio, p: string, body?: unknown) =>
  t.api(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

async function waitForStatus(t: TestStudio, file: string, status: string, catalog: 'models' | 'loras' = 'models'): Promise<LiveEntry> {
  return waitFor(async () => {
    const entry = await entryOf(t, file, catalog);
    return entry.status === status ? entry : undefined;
  }, `${file} to be ${status}`);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  servers = [];
  studio = null;
});

afterEach(async () => {
  await studio?.stop();
  await Promise.all(servers.map((server) => server.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('download manager', () => {
  it('downloads a repohost file, verifies its SHA-256 and only then shows it present', async () => {
    const content = randomBytes(256 * 1024 + 3);
    const origin = await serve({ content });
    const t = await boot([repoEntry('model.safetensors', { size_gb: content.length / 1e9, sha256: sha256(content).toUpperCase(), repo_path: 'split/model.safetensors' })], origin);

    const res = await post(t, '/api/admin/models/download/model.safetensors');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'queued', file: 'model.safetensors' });

    const entry = await waitForStatus(t, 'model.safetensors', 'present');
    expect(entry.on_disk_bytes).toBe(content.length);
    const final = path.join(dir, 'models', 'checkpoints', 'model.safetensors');
    expect(sha256(final)).toBe(sha256(content));
    expect(fs.readdirSync(path.dirname(final))).toEqual(['model.safetensors']);
    expect(origin.requests[0]?.url).toBe('/owner/repo/resolve/main/split/model.safetensors');

    const statuses = await downloadStatuses(t);
    expect(statuses['model.safetensors']).toMatchObject({ status: 'done', bytes_downloaded: content.length, bytes_total: content.length, percent: 100 });
    const log = (await (await t.api('/api/admin/activity-log')).json()) as Array<{ time: string; message: string; level: string }>;
    expect(log.map((line) => line.level)).toEqual(['info', 'info', 'ok']);
    expect(log[2]?.message).toMatch(/Downloaded model\.safetensors .*SHA-256 verified/);
    expect(log[0]?.time).toMatch(/^\d\d:\d\d:\d\d$/);
    // The Events page shows the download too: queued, done and verified, with the file named.
    const events = (await (await t.api('/api/admin/events?types=download.queued,download.done,download.verified')).json()) as Array<{ type: string; data: Record<string, unknown> }>;
    expect(events.map((e) => e.type).sort()).toEqual(['download.done', 'download.queued', 'download.verified']);
    for (const e of events) expect(e.data.file).toBe('model.safetensors');

    // A present file is not downloaded again.
    expect(await (await post(t, '/api/admin/models/download/model.safetensors')).json()).toEqual({ status: 'present', file: 'model.safetensors' });
    expect((await post(t, '/api/admin/models/download/nope.safetensors')).status).toBe(404);
  });

  it('marks a hash mismatch as an error and removes the partial file', async () => {
    const origin = await serve({ content: randomBytes(64 * 1024) });
    const t = await boot([repoEntry('bad.safetensors', { sha256: 'ab'.repeat(32) })], origin);
    await post(t, '/api/admin/models/download/bad.safetensors');
    await waitForStatus(t, 'bad.safetensors', 'error');
    const statuses = await downloadStatuses(t);
    expect(statuses['bad.safetensors']?.status).toBe('error');
    expect(statuses['bad.safetensors']?.error).toMatch(/does not match the catalog's SHA-256/);
    const failed = (await (await t.api('/api/admin/events?types=download.failed')).json()) as Array<{ severity: string; data: Record<string, unknown> }>;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ severity: 'error', data: { file: 'bad.safetensors', error_kind: 'hash_mismatch', reason: expect.stringMatching(/does not match the catalog's SHA-256/) } });
    expect(fs.readdirSync(path.join(dir, 'models', 'checkpoints'))).toEqual([]);
  });

  it('explains a 401 from the model hub by naming MODELHUB_API_KEY', async () => {
    const origin = await serve({ content: randomBytes(1024), requireToken: 'right-token' });
    const t = await boot([], origin, {}, [hubEntry('style.safetensors', '123')]);
    await post(t, '/api/admin/models/download/style.safetensors');
    await waitForStatus(t, 'style.safetensors', 'error', 'loras');
    const error = (await downloadStatuses(t))['style.safetensors']?.error ?? '';
    expect(error).toMatch(/requires an API key: set MODELHUB_API_KEY in Settings/);
    expect(origin.requests[0]?.url).toBe('/api/download/models/123');
    expect(origin.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('sends the token to the origin and never to the host it redirects to', async () => {
    const content = randomBytes(128 * 1024);
    const cdn = await serve({ content });
    const origin = await serve({ redirectTo: cdn.url, redirectStatus: 307 });
    const t = await boot([], origin, { MODELHUB_API_KEY: 'hub-secret' }, [hubEntry('style.safetensors', '77', { size_gb: content.length / 1e9, sha256: sha256(content) })]);
    await post(t, '/api/admin/models/download/style.safetensors');
    await waitForStatus(t, 'style.safetensors', 'present', 'loras');
    expect(origin.requests[0]?.headers.authorization).toBe('Bearer hub-secret');
    expect(cdn.requests.length).toBeGreaterThan(0);
    for (const request of cdn.requests) expect(request.headers.authorization).toBeUndefined();
    expect(sha256(path.join(dir, 'models', 'loras', 'style.safetensors'))).toBe(sha256(content));
  });

  it('reports an HTML login page instead of saving it as the model', async () => {
    const origin = await serve({ html: true });
    const t = await boot([], origin, {}, [hubEntry('gated.safetensors', '5')]);
    await post(t, '/api/admin/models/download/gated.safetensors');
    await waitForStatus(t, 'gated.safetensors', 'error', 'loras');
    expect((await downloadStatuses(t))['gated.safetensors']?.error).toMatch(/login page instead of the file: set MODELHUB_API_KEY/);
    expect(fs.existsSync(path.join(dir, 'models', 'loras', 'gated.safetensors'))).toBe(false);
  });

  it('resumes with Range after a mid-stream disconnect and ends with the right file', async () => {
    const content = randomBytes(300 * 1024);
    const origin = await serve({ content, dropAfterBytes: 100 * 1024, dropTimes: 1 });
    const t = await boot([repoEntry('drop.safetensors', { size_gb: content.length / 1e9, sha256: sha256(content) })], origin);
    await post(t, '/api/admin/models/download/drop.safetensors');
    await waitForStatus(t, 'drop.safetensors', 'present');
    expect(origin.requests.length).toBe(2);
    const range = origin.requests[1]?.headers.range ?? '';
    const offset = Number(/^bytes=(\d+)-$/.exec(range)?.[1]);
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(100 * 1024);
    expect(origin.requests[1]?.headers['if-range']).toBe('"v1"');
    expect(sha256(path.join(dir, 'models', 'checkpoints', 'drop.safetensors'))).toBe(sha256(content));
  });

  it('refuses a download whose catalog size cannot fit on the disk before queueing it, with the numbers', async () => {
    const origin = await serve({ content: randomBytes(1024) });
    const t = await boot([repoEntry('huge.safetensors', { size_gb: 1e9 })], origin);
    const res = await post(t, '/api/admin/models/download/huge.safetensors');
    expect(res.status).toBe(507);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/^Not enough free disk space for downloading huge\.safetensors: needs 1000000000\.0 GB, \d+(\.\d)? (GB|MB) free$/);
    expect((await downloadStatuses(t))['huge.safetensors']).toBeUndefined();
    expect(origin.requests.length).toBe(0);
  });

  it('refuses to start a batch download whose catalog size cannot fit on the disk', async () => {
    const origin = await serve({ content: randomBytes(1024) });
    const t = await boot([repoEntry('huge.safetensors', { size_gb: 1e9 })], origin);
    await post(t, '/api/admin/models/download-batch', { filenames: ['huge.safetensors'] });
    await waitForStatus(t, 'huge.safetensors', 'error');
    expect((await downloadStatuses(t))['huge.safetensors']?.error).toMatch(/Not enough free disk space/);
    expect(origin.requests.length).toBe(0);
  });

  it('honours max_concurrent, and raising it starts queued downloads at once', async () => {
    // Each response sends its first bytes and then holds (no stall timeout within the test): no
    // download can finish and free a slot, however slow the machine, so the counts below are exact.
    const content = randomBytes(400 * 1024);
    const origin = await serve({ content, stallAfterBytes: 16 * 1024 });
    const files = ['a.safetensors', 'b.safetensors', 'c.safetensors'];
    const t = await boot(files.map((file) => repoEntry(file)), origin);
    const put = (value: unknown) => t.api('/api/admin/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ max_concurrent: value }) });
    expect(await (await put(1)).json()).toEqual({ max_concurrent: 1 });

    const batch = await post(t, '/api/admin/models/download-batch', { filenames: [...files, 'unknown.safetensors'] });
    expect(await batch.json()).toEqual({ queued: files, skipped: ['unknown.safetensors'] });
    const again = await post(t, '/api/admin/models/download-batch', { filenames: ['a.safetensors'] });
    expect(await again.json()).toEqual({ queued: [], skipped: ['a.safetensors'] });

    const count = (statuses: Record<string, { status: string }>, status: string) => Object.values(statuses).filter((s) => s.status === status).length;
    let statuses = await waitFor(async () => {
      const s = await downloadStatuses(t);
      return count(s, 'downloading') === 1 ? s : undefined;
    }, 'one download running');
    expect(count(statuses, 'queued')).toBe(2);
    // Over several status events the limit holds.
    for (const event of await readStatusEvents(t, 3)) expect(count(event.downloads, 'downloading')).toBe(1);
    expect(origin.requests.length).toBe(1);

    expect(await (await put(2)).json()).toEqual({ max_concurrent: 2 });
    statuses = await waitFor(async () => {
      const s = await downloadStatuses(t);
      return count(s, 'downloading') === 2 ? s : undefined;
    }, 'two downloads running');
    expect(count(statuses, 'queued')).toBe(1);
    await waitFor(() => origin.requests.length === 2, 'the second request');

    const listing = (await (await t.api('/api/admin/models')).json()) as { stats: Record<string, number> };
    expect(listing.stats.downloading_count).toBe(2);
    expect(listing.stats.queued_count).toBe(1);
    expect(listing.stats.global_speed).toBeGreaterThanOrEqual(0);
  });

  it('cancels a running download when its file is deleted', async () => {
    const origin = await serve({ content: randomBytes(512 * 1024), throttleBytesPerSec: 32 * 1024 });
    const t = await boot([repoEntry('slow.safetensors')], origin);
    await post(t, '/api/admin/models/download/slow.safetensors');
    const part = path.join(dir, 'models', 'checkpoints', 'slow.safetensors.part');
    await waitFor(() => fs.existsSync(part) && fs.statSync(part).size > 0, 'bytes in the part file');

    const res = await t.api('/api/admin/models/slow.safetensors', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'deleted', file: 'slow.safetensors' });
    expect((await downloadStatuses(t))['slow.safetensors']).toBeUndefined();
    expect(fs.readdirSync(path.dirname(part))).toEqual([]);
    expect((await entryOf(t, 'slow.safetensors')).status).toBe('not_downloaded');
    const events = (await (await t.api('/api/admin/events?types=model.deleted')).json()) as Array<{ data: Record<string, unknown> }>;
    expect(events.at(-1)?.data).toMatchObject({ filename: 'slow.safetensors', cancelled_download: true });

    // Nothing left to delete now.
    expect((await t.api('/api/admin/models/slow.safetensors', { method: 'DELETE' })).status).toBe(404);
    expect((await t.api('/api/admin/models/unknown.safetensors', { method: 'DELETE' })).status).toBe(404);
  });

  it('streams one status event per second in the spec shape and ends streams on shutdown', async () => {
    const origin = await serve({ content: randomBytes(512 * 1024), throttleBytesPerSec: 32 * 1024 });
    const t = await boot([repoEntry('s.safetensors')], origin);
    await post(t, '/api/admin/models/download/s.safetensors');
    await waitFor(() => origin.requests.length === 1, 'the download to start');

    const events = await readStatusEvents(t, 3);
    expect(events).toHaveLength(3);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(['downloads', 'timestamp']);
      expect(typeof event.timestamp).toBe('number');
      const entry = event.downloads['s.safetensors'];
      expect(entry && Object.keys(entry).sort()).toEqual(['bytes_downloaded', 'bytes_total', 'percent', 'speed', 'status']);
      expect(['queued', 'downloading']).toContain(entry?.status);
    }
    // The period (one second) is the timer's, checked in tests/unit/downloads/status-stream.test.ts.
    expect(events[2]!.timestamp).toBeGreaterThanOrEqual(events[1]!.timestamp);
    const last = events[2]!.downloads['s.safetensors']!;
    expect(last.bytes_total).toBe(512 * 1024);
    expect(last.percent).toBeCloseTo((last.bytes_downloaded / last.bytes_total) * 100, 0);
    await waitFor(() => t.studio.catalog.streams.size === 0, 'closed streams to be dropped');

    // A client still connected at shutdown sees its stream end.
    const open = await t.api('/api/admin/models/status');
    const reader = open.body!.getReader();
    await reader.read();
    const stopped = t.stop();
    studio = null;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    await stopped;
    // Stopping kept the part for the next boot.
    expect(fs.statSync(path.join(dir, 'models', 'checkpoints', 's.safetensors.part')).size).toBeGreaterThan(0);
  });
});
