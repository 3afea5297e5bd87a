/**
 * Image lookup on the model hub (`GET /api/admin/modelhub/image/{id}`) against a fake hub.
 *
 * Order matters (one Studio and one fake hub for the file): the last test closes the hub, so it
 * stays last.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogOf, hubEntry, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { seedHub } from '../../helpers/fake-hub-data.js';
import { startFakeHub, type FakeHub } from '../../helpers/fake-hub-server.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let dir: string;
let hub: FakeHub;
let t: TestStudio;

interface Lookup {
  raw: { id: number };
  resources: Array<{ modelName: string | null; versionId: string | null; catalog_status: string; catalog_file: string | null }>;
  detected_deps: Array<{ name: string; weight: number; source: string; found_in: string; catalog_status: string; catalog_file: string | null }>;
  clean_prompt: string;
  meta: Record<string, unknown>;
  type: string;
  process: string;
  techniques: unknown[];
  tools: unknown[];
  detected_type: string;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hub = await startFakeHub();
  hub.apiKeys.add('hub-key');
  seedHub(hub);
  writeCatalogs(dir, {
    models: catalogOf([
      hubEntry('juggernautXL_v9.safetensors', '101', { dest: 'checkpoints', sha256: '1'.repeat(64) }),
      hubEntry('easynegative.safetensors', '104', { dest: 'embeddings' }),
    ]),
    loras: catalogOf([hubEntry('add_detail.safetensors', '102')], 'sd15_loras'),
  });
  t = await startTestStudio({ dir, env: { MODELHUB_BASE_URL: hub.url, MODELHUB_API_KEY: 'hub-key' } });
});

afterAll(async () => {
  await t.stop();
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const lookup = async (id: string) => {
  const res = await t.api(`/api/admin/modelhub/image/${id}`);
  return { status: res.status, body: (await res.json()) as Lookup & { detail?: string } };
};

describe('GET /api/admin/modelhub/image/{image_id}', () => {
  it('answers the generation data with resources and prompt tags matched against both catalogs', async () => {
    const { status, body } = await lookup('5001');
    expect(status).toBe(200);
    expect(body.raw.id).toBe(5001);
    expect(body.resources.map((r) => [r.versionId, r.modelName, r.catalog_status, r.catalog_file])).toEqual([
      ['101', 'juggernautXL_v9.safetensors', 'present', 'juggernautXL_v9.safetensors'],
      ['102', 'add_detail.safetensors', 'present', 'add_detail.safetensors'],
      ['999', 'Film Grain', 'not_found', null],
    ]);
    expect(body.detected_deps).toEqual([
      { name: 'add_detail', weight: 0.6, source: 'lora', found_in: 'prompt', catalog_status: 'present', catalog_file: 'add_detail.safetensors', catalog: 'loras' },
      { name: 'unknown_style', weight: 0.8, source: 'lora', found_in: 'prompt', catalog_status: 'not_found', catalog_file: null, catalog: null },
      { name: 'easynegative', weight: 1, source: 'embedding', found_in: 'negative_prompt', catalog_status: 'present', catalog_file: 'easynegative.safetensors', catalog: 'models' },
    ]);
    expect(body.clean_prompt).toBe('masterpiece, a red fox in snow, cinematic');
    expect(body.meta.seed).toBe(12345);
    expect(body).toMatchObject({ type: 'image', process: 'txt2img', detected_type: 't2i', techniques: [], tools: [] });
    const call = hub.requests.find((r) => r.url === '/api/v1/images' && r.search.includes('imageId=5001'));
    expect(call?.search).toContain('withMeta=true');
    expect(call?.headers.authorization).toBe('Bearer hub-key');
  });

  it('answers an image without meta with empty generation data', async () => {
    const { status, body } = await lookup('5002');
    expect(status).toBe(200);
    expect(body.meta).toEqual({});
    expect(body.clean_prompt).toBe('');
    expect(body.detected_deps).toEqual([]);
    expect(body.resources).toEqual([expect.objectContaining({ versionId: '101', catalog_status: 'present' })]);
    expect(body.detected_type).toBe('t2i');
  });

  it('tells videos and image inputs apart', async () => {
    const video = await lookup('5003');
    expect(video.body).toMatchObject({ type: 'video', process: 'img2vid', detected_type: 'i2v', clean_prompt: 'a wave' });
    const img2img = await lookup('5004');
    expect(img2img.body).toMatchObject({ type: 'image', process: 'img2img', detected_type: 'i2i' });
  });

  it('refuses ids that are not positive integers and answers 404 for unknown images', async () => {
    for (const bad of ['abc', '0', '12.5', '-3']) {
      const { status, body } = await lookup(bad);
      expect(status).toBe(400);
      expect(body.detail).toContain('image_id');
    }
    const missing = await lookup('777');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain('image 777');
  });

  it('names MODELHUB_API_KEY when the hub rejects it (401), and the fake hub answers only GET', async () => {
    // The key is revoked on the hub's side: its 401 reaches the user as what to fix, not a crash.
    hub.apiKeys.delete('hub-key');
    try {
      const { status, body } = await lookup('5001');
      // The upstream refused Studio's key: a bad gateway for the caller, whose own key was fine.
      expect(status).toBe(502);
      expect(body.detail).toMatch(/^The model hub rejected MODELHUB_API_KEY \(401\).*check it in Settings/);
    } finally {
      hub.apiKeys.add('hub-key');
    }
    expect((await lookup('5002')).status).toBe(200);
    const posted = await fetch(`${hub.url}/api/v1/images?imageId=5001`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
  });

  it('waits out a 429 for the Retry-After the hub asked, and answers 503 when it keeps refusing', async () => {
    hub.rateLimit = { count: 1, retryAfter: '1' };
    const before = hub.requests.length;
    const slowed = await lookup('5002');
    expect(slowed.status).toBe(200);
    expect(hub.requests.length - before).toBeGreaterThanOrEqual(2);

    hub.rateLimit = { count: 10, retryAfter: '0' };
    const refused = await lookup('5002');
    expect(refused.status).toBe(503);
    expect(refused.body.detail).toContain('429');
    hub.rateLimit = { count: 0, retryAfter: null };
  });

  it('answers 502 naming the hub when it cannot be reached', async () => {
    await hub.close();
    const { status, body } = await lookup('5001');
    expect(status).toBe(502);
    expect(body.detail).toContain('Cannot reach the model hub');
  });
});
