import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/fake-catalogs.js';
import { GALLERY_MODEL, seedGallery } from '../../helpers/fake-gallery.js';
import { seedHub } from '../../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../../helpers/fake-hub-server.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

let dir: string;
let hub: FakeHub;
let media: Map<number, Buffer>;
let t: TestStudio | null = null;

interface Item {
  id: number;
  source: string;
  type: string;
  content_type: string;
  starred: boolean;
  media_url: string;
  thumb_url: string;
}
interface Listing {
  model_id: string;
  total: number;
  items: Item[];
  fetch: { status: string; phase: string; pages: number; downloaded: number; skipped: number; failed: number; cursor: string | null } | null;
}

async function boot(env: Record<string, string> = {}, startEngine = false): Promise<TestStudio> {
  t = await startTestStudio({ dir, startEngine, env: { MODELHUB_BASE_URL: hub.url, MODELHUB_API_KEY: 'hub-secret', GALLERY_PAGE_DELAY_MS: '0', ...env } });
  return t;
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hub = await startFakeHub();
  hub.apiKeys.add('hub-secret');
  seedHub(hub);
  media = await seedGallery(hub, ROOT);
});

afterEach(async () => {
  await t?.stop();
  t = null;
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const list = async (s: TestStudio, query = '') => (await (await s.api(`/api/admin/loras/${GALLERY_MODEL}/gallery${query}`)).json()) as Listing;
const fetched = (s: TestStudio) => waitFor(async () => {
  const listing = await list(s);
  return listing.fetch?.status === 'done' || listing.fetch?.status === 'error' ? listing : undefined;
}, 'the gallery fetch to finish');
const post = (s: TestStudio, p: string, body?: unknown) =>
  s.api(p, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }) });

describe('gallery of a model', () => {
  it('fetches originals and community images by cursor in the background, with thumbnails and progress', async () => {
    const s = await boot();
    const started = await post(s, `/api/admin/loras/${GALLERY_MODEL}/gallery`);
    expect(started.status).toBe(200);
    expect(await started.json()).toMatchObject({ status: 'started', model_id: '12' });

    const listing = await fetched(s);
    expect(listing.fetch).toMatchObject({ status: 'done', phase: 'community', pages: 3, downloaded: 6, failed: 1, cursor: null });
    expect(listing.total).toBe(6);
    expect(listing.items.map((i) => [i.id, i.source, i.type])).toEqual([
      [8001, 'community', 'image'],
      [8002, 'community', 'image'],
      [8003, 'community', 'video'],
      [8004, 'community', 'image'],
      [7002, 'original', 'image'],
      [7001, 'original', 'image'],
    ]);
    expect(listing.items[0]).toMatchObject({ content_type: 'image/jpeg', starred: false, media_url: '/api/admin/loras/gallery/media/8001', thumb_url: '/api/admin/loras/gallery/thumb/8001' });

    const pages = hub.requests.filter((r) => r.url === '/api/v1/images' && r.search.includes('modelId=12'));
    expect(pages.map((r) => new URLSearchParams(r.search).get('cursor'))).toEqual([null, 'c2', 'c4']);
    for (const r of pages) expect(r.search).toContain('withMeta=true');
    for (const r of hub.requests.filter((q) => q.url.startsWith('/media/'))) expect(r.headers.authorization).toBeUndefined();

    const galleryDir = path.join(dir, 'gallery', '12');
    expect(fs.readdirSync(path.join(galleryDir, 'previews')).sort()).toEqual(['7001.jpg', '7001.thumb.jpg', '7002.png', '7002.thumb.jpg']);
    expect(fs.readFileSync(path.join(galleryDir, 'previews', '7001.jpg'))).toEqual(media.get(7001));
    expect(fs.existsSync(path.join(galleryDir, 'community', '8003.mp4'))).toBe(true);
    const videoThumb = await sharp(path.join(galleryDir, 'community', '8003.thumb.jpg')).metadata();
    expect(videoThumb.format).toBe('jpeg');
  });

  it('serves media, thumbnails (Range for videos), metadata and previews, and toggles stars', async () => {
    const s = await boot();
    await post(s, `/api/admin/loras/${GALLERY_MODEL}/gallery`);
    await fetched(s);

    const image = await s.api('/api/admin/loras/gallery/media/7002');
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer())).toEqual(media.get(7002));

    const video = await s.api('/api/admin/loras/gallery/media/8003', { headers: { Range: 'bytes=0-99' } });
    expect(video.status).toBe(206);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect(video.headers.get('content-range')).toBe(`bytes 0-99/${media.get(8003)!.length}`);

    for (const id of [7001, 8003]) {
      const thumb = await s.api(`/api/admin/loras/gallery/thumb/${id}`);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
      expect(Math.max(meta.width, meta.height)).toBeLessThanOrEqual(320);
    }

    const meta = (await (await s.api('/api/admin/loras/gallery/8001/meta')).json()) as { id: number; meta: { prompt: string } };
    expect(meta).toMatchObject({ id: 8001, meta: { prompt: 'a fox <lora:add_detail:0.5>' } });

    const preview = await s.api('/api/admin/loras/images/12/previews/7001.jpg');
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('image/jpeg');
    expect((await s.api('/api/admin/loras/images/12/previews/nope.jpg')).status).toBe(404);
    expect((await s.api('/api/admin/loras/images/12/previews/..%2F..%2Fdb%2Fstudio.db')).status).toBe(400);

    expect(await (await post(s, '/api/admin/loras/gallery/7001/star')).json()).toEqual({ id: 7001, starred: true });
    expect((await list(s, '?starred=true')).items.map((i) => i.id)).toEqual([7001]);
    expect((await list(s, '?starred=false')).total).toBe(5);
    expect((await list(s, '?source=original')).items.map((i) => i.id)).toEqual([7002, 7001]);
    expect((await list(s, '?source=community&limit=2&offset=1')).items.map((i) => i.id)).toEqual([8002, 8003]);
    expect(await (await post(s, '/api/admin/loras/gallery/7001/star')).json()).toEqual({ id: 7001, starred: false });

    expect((await s.api(`/api/admin/loras/${GALLERY_MODEL}/gallery?source=mine`)).status).toBe(400);
    expect((await s.api(`/api/admin/loras/${GALLERY_MODEL}/gallery?starred=maybe`)).status).toBe(400);
    for (const p of ['gallery/media/123', 'gallery/thumb/123', 'gallery/123/meta']) expect((await s.api(`/api/admin/loras/${p}`)).status).toBe(404);
    expect((await post(s, '/api/admin/loras/gallery/123/star')).status).toBe(404);
    expect((await s.api('/api/admin/loras/gallery/media/abc')).status).toBe(400);
  });

  it('deletes a model gallery: records and files', async () => {
    const s = await boot();
    await post(s, `/api/admin/loras/${GALLERY_MODEL}/gallery`);
    await fetched(s);
    const res = await s.api(`/api/admin/loras/${GALLERY_MODEL}/gallery`, { method: 'DELETE' });
    expect(await res.json()).toEqual({ status: 'deleted', model_id: '12', deleted: 6 });
    expect(fs.existsSync(path.join(dir, 'gallery', '12'))).toBe(false);
    expect(await list(s)).toEqual({ model_id: '12', total: 0, items: [], fetch: null });
    expect((await s.api('/api/admin/loras/gallery/media/7001')).status).toBe(404);
  });

  it('answers 404 for a model the hub does not know and 400 for a model id that is not a number', async () => {
    const s = await boot();
    expect((await post(s, '/api/admin/loras/4242/gallery')).status).toBe(404);
    expect((await post(s, '/api/admin/loras/abc/gallery')).status).toBe(400);
    expect((await s.api('/api/admin/loras/abc/gallery')).status).toBe(400);
  });

  it('keeps going through a 429 and stops community images at GALLERY_COMMUNITY_LIMIT', async () => {
    const s = await boot({ GALLERY_COMMUNITY_LIMIT: '3' });
    hub.rateLimit = { count: 1, retryAfter: '0' };
    await post(s, `/api/admin/loras/${GALLERY_MODEL}/gallery`);
    const listing = await fetched(s);
    expect(listing.fetch?.status).toBe('done');
    expect(listing.items.filter((i) => i.source === 'community').map((i) => i.id)).toEqual([8001, 8002, 8003]);
  });

  it('marks the fetch as failed when the hub fails a page, keeping what it saved, with an event', async () => {
    const s = await boot();
    hub.imagesStatus = 500;
    await post(s, `/api/admin/loras/${GALLERY_MODEL}/gallery`);
    const listing = await fetched(s);
    expect(listing.fetch).toMatchObject({ status: 'error', phase: 'community', downloaded: 2 });
    expect((listing.fetch as unknown as { error: string }).error).toContain('answered 500');
    expect(listing.items.map((i) => i.id)).toEqual([7002, 7001]);
    const events = (await (await s.api('/api/admin/events?types=gallery.*')).json()) as Array<{ type: string; data: { model_id: string } }>;
    expect(events.at(-1)).toMatchObject({ type: 'gallery.failed', data: { model_id: '12' } });
  });

  it('resumes an interrupted fetch after a restart from the stored cursor', async () => {
    const first = await boot({ GALLERY_PAGE_DELAY_MS: '600000' });
    await post(first, `/api/admin/loras/${GALLERY_MODEL}/gallery`);
    await waitFor(async () => ((await list(first)).fetch?.pages ?? 0) >= 1 || undefined, 'the first page');
    await first.stop();
    t = null;
    const before = hub.requests.length;

    const second = await boot();
    const listing = await fetched(second);
    expect(listing.fetch).toMatchObject({ status: 'done', downloaded: 6, failed: 1 });
    const after = hub.requests.slice(before).filter((r) => r.url === '/api/v1/images');
    expect(after.map((r) => new URLSearchParams(r.search).get('cursor'))).toEqual(['c2', 'c4']);
    expect(hub.requests.slice(before).filter((r) => r.url === '/media/7001.jpeg')).toEqual([]);
  });

  it('downloads one image into the gallery of its model', async () => {
    const s = await boot();
    hub.media.set('5001.jpeg', { body: media.get(7001)!, type: 'image/jpeg' });
    hub.images.set(5001, { ...hub.images.get(5001)!, url: `${hub.url}/media/5001.jpeg` });
    const res = await post(s, '/api/admin/loras/gallery/download-single/5001');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'downloaded', civitai_id: '5001', model_id: '11', new: true });
    const gallery = (await (await s.api('/api/admin/loras/11/gallery')).json()) as Listing;
    expect(gallery.items.map((i) => [i.id, i.source])).toEqual([[5001, 'community']]);

    const into12 = await post(s, '/api/admin/loras/gallery/download-single/5001', { model_id: 12 });
    expect(await into12.json()).toMatchObject({ status: 'downloaded', model_id: '12', new: true });
    expect((await post(s, '/api/admin/loras/gallery/download-single/777')).status).toBe(404);
    expect((await post(s, '/api/admin/loras/gallery/download-single/x')).status).toBe(400);
  });
});

describe('gallery to engine input', () => {
  it('copies an image into the engine input folder, and refuses a video', async () => {
    const s = await boot({}, true);
    await s.studio.engineReady();
    await post(s, `/api/admin/loras/${GALLERY_MODEL}/gallery`);
    await fetched(s);
    const res = await post(s, '/api/admin/loras/gallery/to-input/7001');
    expect(res.status).toBe(200);
    const { filename } = (await res.json()) as { filename: string };
    expect(filename).toMatch(/^gallery_7001_.*\.jpg$/);
    expect(fs.readFileSync(path.join(dir, 'assets', 'input', filename))).toEqual(media.get(7001));
    const video = await post(s, '/api/admin/loras/gallery/to-input/8003');
    expect(video.status).toBe(400);
    expect((await post(s, '/api/admin/loras/gallery/to-input/123')).status).toBe(404);
  });
});
