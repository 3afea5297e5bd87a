/**
 * Against a real llama-server (built from the llama.cpp source node-llama-cpp ships, see
 * scripts/build-llama-server.mjs) with a tiny random-weight model: start waits for /health,
 * chat answers with usage, streaming ends with [DONE], stop. `npm test` builds the server first;
 * when it is not built this test fails, saying why: it never skips (a skip once hid that CI's build
 * of the server was being killed).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const found = spawnSync(process.execPath, [path.join(APP_ROOT, 'scripts', 'build-llama-server.mjs'), '--cached'], { encoding: 'utf8' });
const binary = found.status === 0 ? found.stdout.trim().split('\n').pop()! : null;

let t: TestStudio;
const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('a real llama-server', () => {
  beforeAll(async () => {
    if (!binary) return;
    t = await startTestStudio({ env: { LLM_BINARY: binary!, LLM_PORT: String(await freePort()) } });
    const cache = path.dirname(path.dirname(path.dirname(binary!)));
    fs.mkdirSync(t.studio.config.paths.llmModels, { recursive: true });
    execFileSync('python3', [
      path.join(APP_ROOT, 'tests', 'fixtures', 'llm', 'make-tiny-gguf.py'),
      path.join(cache, 'gguf-py'),
      path.join(cache, 'ggml-vocab-llama-spm.gguf'),
      path.join(t.studio.config.paths.llmModels, 'tiny.gguf'),
    ]);
  }, 60_000);
  afterAll(async () => t?.stop());

  it('starts, chats (plain and streaming) and stops', async () => {
    if (!binary) expect.fail(found.stderr.trim() || 'llama-server could not be found (node scripts/build-llama-server.mjs builds it)');
    const start = await t.api('/api/admin/llm/start', json({ model: 'tiny.gguf', ctx_size: 256, threads: 2, n_gpu_layers: 0 }));
    expect(start.status, await start.clone().text()).toBe(200);
    const status = (await (await t.api('/api/admin/llm/status')).json()) as { running: boolean; health: { status: string } };
    expect(status).toMatchObject({ running: true, health: { status: 'ok' } });
    const plain = (await (await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }))).json()) as {
      choices: Array<{ message: { role: string } }>;
      usage: { completion_tokens: number; total_tokens: number };
    };
    expect(plain.choices[0]!.message.role).toBe('assistant');
    expect(plain.usage.completion_tokens).toBeGreaterThan(0);
    const stream = await (await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true }))).text();
    expect(stream).toContain('"delta"');
    expect(stream).toContain('"usage"');
    expect(stream.trim().endsWith('data: [DONE]')).toBe(true);
    expect(await (await t.api('/api/admin/llm/stop', { method: 'POST' })).json()).toEqual({ status: 'stopped' });
  }, 60_000);
});
