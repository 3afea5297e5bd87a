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

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hub = await startFakeHub();
  seedHub(hub);
  writeCatalogs(dir, {
    models: catalogOf([hubEntry('juggernautXL_v9.safetensors', '101', { dest: 'checkpoints' })]),
    loras: catalogOf([hubEntry('add_detail.safetensors', '102')], 'sd15_loras'),
  });
  t = await startTestStudio({ dir, env: { MODELHUB_BASE_URL: hub.url } });
});

afterAll(async () => {
  await t.stop();
  await hub.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const make = async (imageId: string, body?: unknown) => {
  const res = await t.api(`/api/admin/modelhub/image/${imageId}/preset`, {
    method: 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('POST /api/admin/modelhub/image/{image_id}/preset', () => {
  it('makes a preset for the best-matching workflow with the image prompt, seed, steps, size and catalogued LoRAs', async () => {
    const { status, body } = await make('5001');
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: 'modelhub-5001', workflow_id: 'txt2img-sdxl-lora', detected_type: 't2i' });

    const preset = (await (await t.api('/api/admin/presets/modelhub-5001')).json()) as Record<string, unknown>;
    expect(preset).toMatchObject({
      id: 'modelhub-5001',
      source: { type: 'modelhub', modelhub_image_id: 5001, detected_type: 't2i' },
      workflow: {
        workflow_id: 'txt2img-sdxl-lora',
        params: {
          positive: 'masterpiece, a red fox in snow, cinematic',
          negative: 'embedding:easynegative, blurry',
          seed: 12345,
          steps: 28,
          width: 832,
          height: 1216,
          loras: [{ name: 'add_detail.safetensors', strength: 0.6 }],
        },
      },
    });
    const list = (await (await t.api('/api/admin/presets')).json()) as Array<Record<string, unknown>>;
    expect(list.find((p) => p.id === 'modelhub-5001')).toMatchObject({
      source_type: 'modelhub',
      modelhub_image_id: 5001,
      modelhub_url: `${hub.url}/images/5001`,
      detected_type: 't2i',
    });
    expect((await make('5001')).body.id).toBe('modelhub-5001-2');
  });

  it('picks the image-to-video workflow for an i2v video, and takes a workflow or id the caller names', async () => {
    const video = await make('5003');
    expect(video.body).toMatchObject({ workflow_id: 'img2vid-wan', detected_type: 'i2v', params: { prompt: 'a wave', seed: 7, steps: 20 } });

    const named = await make('5001', { id: 'fox', name: 'Fox', workflow_id: 'txt2img-sdxl' });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ id: 'fox', workflow_id: 'txt2img-sdxl', params: { cfg: 6.5, seed: 12345 } });
    expect(((await (await t.api('/api/admin/presets/fox')).json()) as { name: string }).name).toBe('Fox');
  });

  it('answers 404 for an unknown image or workflow and 400 for a bad id', async () => {
    expect((await make('777')).status).toBe(404);
    expect((await make('5001', { workflow_id: 'nope' })).status).toBe(404);
    expect((await make('x')).status).toBe(400);
    expect((await make('5001', { id: 'bad id!' })).status).toBe(400);
  });
});
