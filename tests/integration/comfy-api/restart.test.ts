/**
 * A client of the engine's API across a Studio restart (issue 44): Studio is killed while the
 * client's prompt runs; its engine (an orphan now) finishes it; the new Studio completes the job,
 * and the client that reconnects its socket with its `clientId` gets the prompt's outputs and its
 * `execution_success`, and `GET /history/{id}` answers completed with the outputs, as the engine would.
 * Studio stopped gracefully (its engine with it): the prompts it stalled run again as new jobs, and
 * the client hears each end under its own prompt id.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { plantModels } from '../../helpers/runner.js';
import { freePort } from '../../helpers/ports.js';
import { startStudioProcess, type StudioProcess } from '../../helpers/studio-process.js';
import { TEST_API_KEY } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { T2I } from './graphs.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-comfy-restart-'));
const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-comfy-restart2-'));
const procs: StudioProcess[] = [];

afterAll(async () => {
  for (const p of procs) await p.stop();
  for (const d of [dir, dir2]) fs.rmSync(d, { recursive: true, force: true });
});

interface Frame {
  type: string;
  data: Record<string, unknown>;
}

/** A raw client socket at the door, collecting its text frames. */
function door(url: string, clientId: string): Promise<{ frames: Frame[]; ws: WebSocket }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/comfy/ws?clientId=${clientId}&token=${TEST_API_KEY}`);
  const frames: Frame[] = [];
  ws.on('message', (data, binary) => {
    if (!binary) frames.push(JSON.parse(String(data)) as Frame);
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ frames, ws }));
    ws.once('error', reject);
  });
}

describe("the engine's API across a Studio restart", () => {
  it('gives a reconnecting client the end of its prompt, and the history entry', async () => {
    plantModels(dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
    const env = { STUDIO_DIR: dir, ENGINE_PORT: String(await freePort()), STANDIN_STEP_MS: '150', STANDIN_NODE_MS: '20', COMFY_API: 'on' };
    const first = await startStudioProcess(env);
    procs.push(first);
    await until(async () => ((await (await first.api('/api/admin/engines')).json()) as { engines: Array<{ status: string }> }).engines[0]?.status === 'online', 'the engine online', 60_000);
    const clientId = 'restart-client';
    const before = await door(first.url, clientId);
    const promptId = crypto.randomUUID();
    const res = await first.api('/comfy/prompt', { method: 'POST', body: JSON.stringify({ prompt: T2I, client_id: clientId, prompt_id: promptId }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { prompt_id: string }).prompt_id).toBe(promptId);
    await until(() => before.frames.some((f) => f.type === 'progress' && f.data.prompt_id === promptId), 'progress through the door', 30_000);
    before.ws.terminate();
    await first.kill();

    const second = await startStudioProcess(env);
    procs.push(second);
    const after = await door(second.url, clientId);
    const success = await until(() => after.frames.find((f) => f.type === 'execution_success' && f.data.prompt_id === promptId), 'execution_success after the restart', 60_000).catch(async (err: unknown) => {
      // Say what the client got and where the job is: a failure here is a timing one to read.
      throw new Error(`${String(err)}; frames ${JSON.stringify(after.frames).slice(0, 1500)}; job ${await (await second.api(`/api/admin/history/${promptId}`)).text()}`);
    });
    expect(success).toBeTruthy();
    const executed = after.frames.find((f) => f.type === 'executed' && f.data.prompt_id === promptId);
    expect(executed?.data.node).toBe('9');
    // The outputs come before the end, as the engine sends them.
    expect(after.frames.indexOf(executed!)).toBeLessThan(after.frames.indexOf(success));
    after.ws.close();

    const history = (await (await second.api(`/comfy/history/${promptId}`)).json()) as Record<string, { status: { status_str: string; completed: boolean }; outputs: Record<string, { images: Array<{ filename: string; subfolder: string }> }> }>;
    expect(history[promptId]?.status).toMatchObject({ status_str: 'success', completed: true });
    const image = history[promptId]!.outputs['9']!.images[0]!;
    const view = await second.api(`/comfy/view?filename=${encodeURIComponent(image.filename)}&subfolder=${encodeURIComponent(image.subfolder)}&type=output`);
    expect(view.status).toBe(200);
  }, 150_000);

  it('runs again the prompts a graceful restart stalled (waiting, and on the engine stopped with it): the client hears each end under its own id', async () => {
    plantModels(dir2, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
    const env = { STUDIO_DIR: dir2, ENGINE_PORT: String(await freePort()), STANDIN_STEP_MS: '150', STANDIN_NODE_MS: '20', COMFY_API: 'on' };
    const first = await startStudioProcess(env);
    procs.push(first);
    await until(async () => ((await (await first.api('/api/admin/engines')).json()) as { engines: Array<{ status: string }> }).engines[0]?.status === 'online', 'the engine online', 60_000);
    const clientId = 'graceful-client';
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    for (const id of ids) expect((await first.api('/comfy/prompt', { method: 'POST', body: JSON.stringify({ prompt: T2I, client_id: clientId, prompt_id: id }) })).status).toBe(200);
    await until(async () => ((await (await first.api('/comfy/queue')).json()) as { queue_running: unknown[] }).queue_running.length > 0, 'the first prompt running', 30_000);
    await first.stop();

    const second = await startStudioProcess(env);
    procs.push(second);
    const after = await door(second.url, clientId);
    for (const id of ids) await until(() => after.frames.find((f) => f.type === 'execution_success' && f.data.prompt_id === id), `execution_success of ${id}`, 90_000);
    expect(after.frames.some((f) => f.type === 'execution_error')).toBe(false);
    after.ws.close();
    for (const id of ids) {
      const entry = ((await (await second.api(`/comfy/history/${id}`)).json()) as Record<string, { status: { completed: boolean }; outputs: Record<string, unknown> }>)[id];
      expect(entry?.status.completed).toBe(true);
      expect(Object.keys(entry?.outputs ?? {})).toEqual(['9']);
    }
    // Studio's history keeps the stalled job and names it in the job that ran it again.
    const stalled = (await (await second.api(`/api/admin/history/${ids[2]}`)).json()) as { status: string };
    expect(stalled.status).toBe('stalled');
  }, 200_000);
});
