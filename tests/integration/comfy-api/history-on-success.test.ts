/**
 * A client that asks `GET /history/{id}` the moment it hears `execution_success` (as the client
 * libraries do) finds the entry completed with its outputs, as the engine answers once it has sent
 * it: the door holds the engine's last message until Studio's job has finished (its outputs collected).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { plantModels } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { T2I } from './graphs.js';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { COMFY_API: 'on', STANDIN_STEP_MS: '5', STANDIN_NODE_MS: '5' } });
  plantModels(t.dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  await t.studio.engineReady(60_000);
}, 90_000);

afterAll(async () => {
  await t?.stop();
});

type Entry = Record<string, { status?: { status_str: string; completed: boolean }; outputs?: Record<string, unknown> }>;

describe("the door's last message", () => {
  it('comes when the history entry is there', async () => {
    const clientId = 'history-client';
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/comfy/ws?clientId=${clientId}`, { headers: { 'X-API-Key': t.apiKey } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const seen: Entry[] = [];
    const ids = Array.from({ length: 3 }, () => crypto.randomUUID());
    ws.on('message', (data, binary) => {
      if (binary) return;
      const frame = JSON.parse(String(data)) as { type: string; data: { prompt_id?: string } };
      if (frame.type !== 'execution_success') return;
      // Asked at once, before anything else happens in this process.
      void t.api(`/comfy/history/${frame.data.prompt_id}`).then(async (res) => seen.push((await res.json()) as Entry));
    });
    for (const id of ids) {
      const res = await t.api('/comfy/prompt', { method: 'POST', body: JSON.stringify({ prompt: T2I, client_id: clientId, prompt_id: id }) });
      expect(res.status).toBe(200);
    }
    await until(() => seen.length === ids.length, 'three entries asked for', 60_000);
    ws.close();
    for (const entry of seen) {
      const [id, value] = Object.entries(entry)[0] ?? [];
      expect(ids).toContain(id);
      expect(value?.status).toMatchObject({ status_str: 'success', completed: true });
      expect(Object.keys(value?.outputs ?? {})).not.toHaveLength(0);
    }
  }, 90_000);
});
