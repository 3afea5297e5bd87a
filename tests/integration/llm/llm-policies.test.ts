/**
 * Beyond LM Studio and llama-swap on a box that also renders images: an idle server stops and the
 * next chat starts it again with the same model and configuration; under `yield` the server is
 * parked while image jobs run and comes back when the queue is empty; deleting the active model
 * stops the server first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { EventBus } from '../../../server/events/event-bus.js';
import { LlmConfigStore } from '../../../server/llm/llm-config.store.js';
import { LlmService } from '../../../server/llm/llm.service.js';
import { silentLogger } from '../../../server/logging.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const FAKE = path.join(APP_ROOT, 'tests', 'fixtures', 'children', 'fake-llama-server.mjs');
let dir: string;
let binary: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-llm-policy-'));
  binary = path.join(dir, 'llama-server');
  fs.writeFileSync(binary, `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(dir, 'models'));
  fs.writeFileSync(path.join(dir, 'models', 'm.gguf'), JSON.stringify({ loadMs: 100 }));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function service(options: { idleMinutes?: number; gpuPolicy?: 'share' | 'yield' }) {
  const events = new EventBus({ file: path.join(dir, 'events.jsonl'), logger: silentLogger });
  const llm = new LlmService({
    server: { binary: () => binary, port: await freePort(), modelsDir: path.join(dir, 'models'), env: { PATH: process.env.PATH }, readyTimeoutMs: 10_000, logFile: path.join(dir, 'llm.log'), logger: silentLogger },
    store: new LlmConfigStore(path.join(dir, 'config.json')),
    events,
    logger: silentLogger,
    idleMinutes: options.idleMinutes ?? 0,
    gpuPolicy: options.gpuPolicy ?? 'share',
  });
  return { llm, events };
}

describe('LLM_IDLE_MINUTES', () => {
  it('stops an idle server and starts it again, same model and configuration, for the next chat', async () => {
    const { llm, events } = await service({ idleMinutes: 0.005 });
    await llm.start('m.gguf', { ctx_size: 1234 });
    await until(async () => (await llm.status()).idle_stopped === true, 'idle stop');
    expect(await llm.status()).toMatchObject({ running: false, idle_stopped: true });
    const answer = await llm.chat({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 });
    expect(answer).toMatchObject({ kind: 'json', body: { choices: [{ message: { content: 'tok0 ' } }] } });
    const argvs = fs.readFileSync(path.join(dir, 'models', 'm.gguf.record.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv?: string[] }).filter((r) => r.argv);
    expect(argvs).toHaveLength(2);
    expect(argvs[1]!.argv!.join(' ')).toContain('-c 1234');
    expect(events.list().some((e) => e.message.includes('idle'))).toBe(true);
    await llm.close();
  }, 30_000);
});

describe('LLM_GPU_POLICY=yield', () => {
  it('parks while image jobs run, answers chats 503 meanwhile, and comes back when the queue is empty', async () => {
    const { llm, events } = await service({ gpuPolicy: 'yield' });
    await llm.start('m.gguf', {});
    await llm.engineQueue(true);
    expect((await llm.status()).parked).toBe(true);
    expect((await llm.status()).running).toBe(false);
    await expect(llm.chat({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ kind: 'unavailable' });
    await llm.engineQueue(false);
    expect(await llm.status()).toMatchObject({ running: true, parked: false });
    expect(events.list().map((e) => e.type)).toEqual(expect.arrayContaining(['llm.parked', 'llm.resumed']));
    await llm.close();
  }, 30_000);

  it('does nothing under the default policy', async () => {
    const { llm, events } = await service({});
    await llm.start('m.gguf', {});
    // Wait for the policy to have been evaluated, then nothing happened.
    await llm.engineQueue(true);
    expect(await llm.status()).toMatchObject({ running: true, parked: false });
    await llm.engineQueue(false);
    expect(events.list().filter((e) => e.type === 'llm.parked' || e.type === 'llm.resumed')).toEqual([]);
    await llm.close();
  }, 30_000);
});

describe('deleting the active model', () => {
  it('stops the server before the file goes', async () => {
    const studioDir = path.join(dir, 'studio');
    const t = await startTestStudio({ dir: studioDir, env: { LLM_BINARY: binary, LLM_PORT: String(await freePort()) } });
    try {
      const file = 'qwen2.5-0.5b-instruct-q4_k_m.gguf';
      fs.mkdirSync(t.studio.config.paths.llmModels, { recursive: true });
      fs.writeFileSync(path.join(t.studio.config.paths.llmModels, file), JSON.stringify({ loadMs: 0 }));
      const start = await t.api('/api/admin/llm/start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: file }) });
      expect(start.status).toBe(200);
      const del = await t.api(`/api/admin/llm/models/${file}`, { method: 'DELETE' });
      expect(await del.json()).toEqual({ status: 'deleted', file });
      expect(await (await t.api('/api/admin/llm/status')).json()).toMatchObject({ running: false, active_model: null });
      expect(fs.existsSync(path.join(t.studio.config.paths.llmModels, file))).toBe(false);
    } finally {
      await t.stop();
    }
  }, 30_000);
});
