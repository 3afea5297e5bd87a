import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/fake-catalogs.js';
import { GALLERY_MODEL, seedGallery } from '../../helpers/fake-gallery.js';
import { seedHub } from '../../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../../helpers/fake-hub-server.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
let dir: string;
let hub: FakeHub;
let t: TestStudio;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hub = await startFakeHub();
  hub.apiKeys.add('hub-secret');
  seedHub(hub);
  await seedGallery(hub, ROOT);
  for (const [id, name] of [[7, 'landscape'], [8, 'fox'], [9, 'snow']] as const) hub.tags.set(id, name);
  t = await startTestStudio({ dir, env: { MODELHUB_BASE_URL: hub.url, MODELHUB_API_KEY: 'hub-secret', GALLERY_PAGE_DELAY_MS: '0' } });
});

afterAll(async () => {
  await t.stop();
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('model hub tags', () => {
  it('resolves tag ids seen in gallery metadata through the hub batch query and lists the cached names', async () => {
    expect(await (await t.api('/api/admin/modelhub/tags')).json()).toEqual({ tags: [], total: 0 });
    await t.api(`/api/admin/loras/${GALLERY_MODEL}/gallery`, { method: 'POST' });
    await waitFor(async () => {
      const listing = (await (await t.api(`/api/admin/loras/${GALLERY_MODEL}/gallery`)).json()) as { fetch: { status: string } | null };
      return listing.fetch?.status === 'done' || undefined;
    }, 'the gallery fetch');

    const synced = await t.api('/api/admin/modelhub/tags/sync', { method: 'POST' });
    expect(synced.status).toBe(200);
    expect(await synced.json()).toEqual({ status: 'synced', seen: 5, resolved: 4, unknown: [10], total: 4 });
    const batch = hub.requests.filter((r) => r.url.startsWith('/api/trpc/'));
    expect(batch).toHaveLength(1);
    expect(batch[0]!.url).toBe('/api/trpc/tag.getById,tag.getById,tag.getById,tag.getById');
    expect(new URLSearchParams(batch[0]!.search).get('batch')).toBe('1');
    expect(batch[0]!.headers.authorization).toBe('Bearer hub-secret');

    const listed = (await (await t.api('/api/admin/modelhub/tags')).json()) as { tags: Array<{ id: number; name: string }>; total: number };
    expect(listed.total).toBe(4);
    expect(listed.tags.map((tag) => [tag.id, tag.name])).toEqual([
      [11, 'carried'],
      [8, 'fox'],
      [7, 'landscape'],
      [9, 'snow'],
    ]);

    const again = (await (await t.api('/api/admin/modelhub/tags/sync', { method: 'POST' })).json()) as { resolved: number; unknown: number[] };
    expect(again).toMatchObject({ resolved: 0, unknown: [10] });
    const last = hub.requests.filter((r) => r.url.startsWith('/api/trpc/')).at(-1)!;
    expect(last.url).toBe('/api/trpc/tag.getById');
  });

  it('answers 503 when the hub keeps rate limiting the lookup', async () => {
    hub.rateLimit = { count: 10, retryAfter: '0' };
    const res = await t.api('/api/admin/modelhub/tags/sync', { method: 'POST' });
    expect(res.status).toBe(503);
    hub.rateLimit = { count: 0, retryAfter: null };
  });
});
