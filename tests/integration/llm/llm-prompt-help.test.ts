/**
 * "Improve prompt": the LLM server starts on demand with the last model used (else the smallest
 * on disk), the chat carries the system prompt that keeps the subject and streams back; without a
 * model or a runtime the answer says what to do; under LLM_GPU_POLICY=yield it waits for image
 * jobs instead of taking the GPU. Against the stand-in llama-server (a real HTTP child).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { EventBus } from '../../../server/events/event-bus.js';
import { isKind } from '../../../server/domain-error.js';
import { LlmConfigStore } from '../../../server/llm/llm-config.store.js';
import { LlmService } from '../../../server/llm/llm.service.js';
import { silentLogger } from '../../../server/logging.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const FAKE = path.join(APP_ROOT, 'tests', 'fixtures', 'children', 'fake-llama-server.mjs');
let t: TestStudio;
let dir: string;
let binary: string;
const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-llm-help-'));
  binary = path.join(dir, 'llama-server');
  fs.writeFileSync(binary, `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`, { mode: 0o755 });
  t = await startTestStudio({ env: { LLM_BINARY: binary, LLM_PORT: String(await freePort()), STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
});
afterAll(async () => {
  await t.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('improve prompt', () => {
  it('says what to do when no model is downloaded', async () => {
    const res = await t.api('/api/admin/llm/improve-prompt', json({ text: 'a cat on a sofa' }));
    expect(res.status).toBe(409);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/No LLM model is downloaded.*LLM page/);
    expect((await t.api('/api/admin/llm/improve-prompt', json({ text: '   ' }))).status).toBe(400);
  });

  it('starts the server on demand with the smallest model and streams the improved prompt', async () => {
    const models = t.studio.config.paths.llmModels;
    fs.mkdirSync(models, { recursive: true });
    fs.writeFileSync(path.join(models, 'big.gguf'), JSON.stringify({ loadMs: 50, pad: 'x'.repeat(500) }));
    fs.writeFileSync(path.join(models, 'small.gguf'), JSON.stringify({ loadMs: 50 }));
    const res = await t.api('/api/admin/llm/improve-prompt', json({ text: 'a cat on a sofa' }));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    expect(text).toContain('"delta"');
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    const status = (await (await t.api('/api/admin/llm/status')).json()) as { running: boolean; active_model: string };
    expect(status).toMatchObject({ running: true, active_model: 'small.gguf' });
    const records = fs.readFileSync(path.join(models, 'small.gguf.record.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request?: { messages: Array<{ role: string; content: string }>; stream: boolean } });
    const chat = records.find((r) => r.request)!.request!;
    expect(chat.stream).toBe(true);
    expect(chat.messages[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/Keep the user's subject exactly/) });
    expect(chat.messages[1]).toEqual({ role: 'user', content: 'a cat on a sofa' });
    await t.api('/api/admin/llm/stop', { method: 'POST' });
  });

  it('does not take the GPU from image jobs under the yield policy, and needs a runtime', async () => {
    const models = path.join(dir, 'models');
    fs.mkdirSync(models, { recursive: true });
    fs.writeFileSync(path.join(models, 'm.gguf'), JSON.stringify({ loadMs: 50 }));
    const make = (bin: string) =>
      new LlmService({
        server: { binary: () => bin, port: 1, modelsDir: models, env: { PATH: process.env.PATH }, readyTimeoutMs: 5_000, logFile: path.join(dir, 'llm.log'), logger: silentLogger },
        store: new LlmConfigStore(path.join(dir, 'config.json')),
        events: new EventBus({ file: path.join(dir, 'events.jsonl'), logger: silentLogger }),
        logger: silentLogger,
        idleMinutes: 0,
        gpuPolicy: 'yield',
      });
    const yielding = make(binary);
    await yielding.engineQueue(true);
    const held = await yielding.improvePrompt('a cat', 'positive').catch((err: unknown) => err);
    expect(isKind(held, 'unavailable')).toBe(true);
    expect((held as Error).message).toMatch(/held back while image jobs run/);
    const none = await make(path.join(dir, 'no-such-llama-server')).improvePrompt('a cat', 'positive').catch((err: unknown) => err);
    expect(isKind(none, 'conflict')).toBe(true);
    expect((none as Error).message).toMatch(/No LLM runtime is installed/);
  });
});
