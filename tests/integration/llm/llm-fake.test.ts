/**
 * The LLM server supervisor and chat proxy against a fake llama-server (a real HTTP child): start
 * waits out 503 "Loading model", a crash while loading is a 500 with its stderr, status/stop/config
 * per the spec, chat non-streaming and streaming (chunk by chunk, errors mid-stream, old builds'
 * shapes), client aborts reaching upstream, a crash while running, deleting the active model.
 * The tests share one Studio and run in order: the chat proxy's first test chats with the server
 * the lifecycle tests started, with the configuration they saved (top_k 12, repeat_penalty 1.3);
 * the others start the fake model they need.
 *
 * Order matters (one Studio for the file; found with --sequence.shuffle): the lifecycle test
 * starts the server from stopped, the chat tests use the server it started, and the crash and stop
 * tests end it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

let t: TestStudio;
let dir: string;
let models: string;

const FAKE = path.join(APP_ROOT, 'tests', 'fixtures', 'children', 'fake-llama-server.mjs');

function model(name: string, behaviour: Record<string, unknown>): string {
  fs.writeFileSync(path.join(models, name), JSON.stringify(behaviour));
  return name;
}
const records = (name: string) =>
  fs.existsSync(path.join(models, `${name}.record.jsonl`))
    ? fs.readFileSync(path.join(models, `${name}.record.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-llm-'));
  const binary = path.join(dir, 'llama-server');
  fs.writeFileSync(binary, `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`, { mode: 0o755 });
  // No GPU tool answers (and the stand-in lists no devices): automatic GPU layers come out as 0.
  t = await startTestStudio({ env: { LLM_BINARY: binary, LLM_PORT: String(await freePort()), STUDIO_DIR: path.join(dir, 'studio'), STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' }, dir: path.join(dir, 'studio') });
  models = t.studio.config.paths.llmModels;
  fs.mkdirSync(models, { recursive: true });
});
afterAll(async () => {
  await t.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('LLM server lifecycle', () => {
  it('reports stopped, then starts with the stored config merged with the request once /health is 200', async () => {
    const before = (await (await t.api('/api/admin/llm/status')).json()) as Record<string, unknown>;
    // A runtime but no model yet: "Improve prompt" cannot answer, and the status says so.
    expect(before).toMatchObject({ running: false, active_model: null, health: null, binary_exists: true, port: t.studio.llm.port, can_improve: false });
    expect(Object.keys(before.config as object).some((k) => k.startsWith('_'))).toBe(false);
    const name = model('slow-load.gguf', { loadMs: 800 });
    expect(await (await t.api('/api/admin/llm/status')).json()).toMatchObject({ running: false, can_improve: true });
    const res = await t.api('/api/admin/llm/start', json({ model: name, ctx_size: 2048, temp: 0.3 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'started', model: name, port: t.studio.llm.port });
    const argv = records(name)[0]!.argv as string[];
    expect(argv.join(' ')).toMatch(/-m .*slow-load\.gguf --host 127\.0\.0\.1 --port \d+ -ngl 0 -c 2048 -t -1 --temp 0\.3 --top-p 0\.95 --top-k 40 --repeat-penalty 1\.1/);
    const status = (await (await t.api('/api/admin/llm/status')).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ running: true, active_model: name, health: { status: 'ok' } });
  }, 30_000);

  it('validates start: 400 without a model, 404 for a file not on disk', async () => {
    expect((await t.api('/api/admin/llm/start', json({}))).status).toBe(400);
    expect((await t.api('/api/admin/llm/start', json({ model: 'nope.gguf' }))).status).toBe(404);
    expect((await t.api('/api/admin/llm/start', json({ model: '../../etc/passwd' }))).status).toBe(404);
    // Names that pass a basename check but are not model files: the folder itself, its parent, a sub-folder.
    fs.mkdirSync(path.join(models, 'sub.gguf'), { recursive: true });
    for (const name of ['..', '.', 'sub.gguf']) {
      const res = await t.api('/api/admin/llm/start', json({ model: name }));
      expect(res.status, name).toBe(404);
      expect(await res.json()).toEqual({ detail: `Model not on disk: ${name}` });
    }
    const bad = await t.api('/api/admin/llm/start', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"model":' });
    expect(bad.status).toBe(400);
  });

  it('saves the configuration without restarting the server', async () => {
    const res = await t.api('/api/admin/llm/config', json({ top_k: 12, repeat_penalty: 1.3 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'saved', config: { top_k: 12, repeat_penalty: 1.3, ctx_size: 4096 } });
    expect(JSON.parse(fs.readFileSync(t.studio.config.paths.llmConfig, 'utf8'))).toMatchObject({ top_k: 12 });
    expect(((await (await t.api('/api/admin/llm/status')).json()) as { running: boolean }).running).toBe(true);
    expect((await t.api('/api/admin/llm/config', json({ top_k: 'many' }))).status).toBe(400);
  });
});

describe('the chat proxy', () => {
  it('answers non-streaming with usage, per-request fields over the stored configuration', async () => {
    const res = await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'hi' }], temperature: 0.1, max_tokens: 3 }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }>; usage: Record<string, number> };
    expect(body.choices[0]!.message.content).toBe('tok0 tok1 tok2 ');
    expect(body.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    const sent = records('slow-load.gguf').filter((r) => r.request).pop()!.request as Record<string, unknown>;
    expect(sent).toMatchObject({ temperature: 0.1, top_k: 12, repeat_penalty: 1.3, stream: false });
  });

  it('streams chunks as they arrive and ends with [DONE]', async () => {
    // In lockstep the fake sends the next chunk only when asked, after this one was read here: a
    // relay that buffers would never hand over the first chunk, and this test would time out.
    await t.api('/api/admin/llm/start', json({ model: model('lockstep.gguf', { loadMs: 0, lockstep: true }) }));
    const res = await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'hi' }], stream: true, max_tokens: 4 }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const events: string[] = [];
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += Buffer.from(value).toString('utf8');
      // Exactly the one chunk the fake sent has arrived (it waits for us): release the next.
      const end = buffered.lastIndexOf('\n\n');
      if (end < 0) continue;
      events.push(...buffered.slice(0, end).split('\n\n'));
      buffered = buffered.slice(end + 2);
      if (events.at(-1) === 'data: [DONE]') continue;
      expect((await fetch(`http://127.0.0.1:${t.studio.llm.port}/_next`, { method: 'POST' })).status).toBe(200);
    }
    // role, 4 tokens, stop, usage, [DONE]: each arrived on its own.
    expect(events).toHaveLength(8);
    expect(events.slice(1, 5).map((e) => (JSON.parse(e.slice(6)) as { choices: Array<{ delta: { content: string } }> }).choices[0]!.delta.content)).toEqual(['tok0 ', 'tok1 ', 'tok2 ', 'tok3 ']);
    expect(events[6]).toContain('"usage"');
    expect(events[7]).toBe('data: [DONE]');
  });

  it('passes an error mid-stream on as a data line and still ends with [DONE]; old error: lines too', async () => {
    for (const [name, behaviour, message] of [
      ['mid-error.gguf', { errorMidStream: true, loadMs: 0 }, 'fake failure mid-stream'],
      ['old-error.gguf', { oldErrorMidStream: true, loadMs: 0 }, 'old-style failure'],
    ] as const) {
      expect((await t.api('/api/admin/llm/start', json({ model: model(name, behaviour) }))).status).toBe(200);
      const text = await (await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'x' }], stream: true }))).text();
      expect(text).toMatch(new RegExp(`data: \\{.*"error".*${message}`));
      expect(text).not.toMatch(/^error:/m);
      expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    }
  }, 30_000);

  it('computes usage for builds that only report timings', async () => {
    await t.api('/api/admin/llm/start', json({ model: model('old-usage.gguf', { oldUsage: true, loadMs: 0 }) }));
    const body = (await (await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'x' }], max_tokens: 2 }))).json()) as { usage: unknown };
    expect(body.usage).toEqual({ prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 });
  }, 30_000);

  it('aborts the upstream request when the client leaves', async () => {
    // Lockstep: the fake sends one chunk and waits for a `/_next` that never comes.
    const name = model('held-tokens.gguf', { loadMs: 0, lockstep: true });
    await t.api('/api/admin/llm/start', json({ model: name }));
    const controller = new AbortController();
    const res = await t.api('/api/admin/llm/chat', { ...json({ messages: [{ role: 'user', content: 'x' }], stream: true, max_tokens: 100 }), signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await until(() => records(name).some((r) => r.aborted === true), 'the fake sees the abort');
    const sent = records(name).find((r) => r.aborted)!.sent as number;
    expect(sent).toBe(1);
  }, 30_000);

  it('answers 400 without messages', async () => {
    expect((await t.api('/api/admin/llm/chat', json({ stream: true }))).status).toBe(400);
  });
});

describe('failures and stop', () => {
  it('a crash while running shows in status and an event', async () => {
    expect(((await (await t.api('/api/admin/llm/status')).json()) as { running: boolean }).running).toBe(true);
    await fetch(`http://127.0.0.1:${t.studio.llm.port}/crash`).catch(() => undefined);
    await until(async () => !((await (await t.api('/api/admin/llm/status')).json()) as { running: boolean }).running, 'status shows the crash');
    const status = (await (await t.api('/api/admin/llm/status')).json()) as { last_error: string };
    expect(status.last_error).toMatch(/fake crash/);
    const events = (await (await t.api('/api/admin/events?types=llm.crashed')).json()) as Array<{ severity: string }>;
    expect(events).toHaveLength(1);
    const chat = await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'x' }] }));
    expect(chat.status).toBe(503);
  }, 30_000);

  it('a process that exits while loading is a 500 with its stderr, and the server stays stopped', async () => {
    const res = await t.api('/api/admin/llm/start', json({ model: model('broken.gguf', { crashWhileLoading: true, loadMs: 60_000 }) }));
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/tensor data is not within the file bounds/);
    expect(await (await t.api('/api/admin/llm/status')).json()).toMatchObject({ running: false, active_model: null });
  }, 30_000);

  it('stop answers stopped, then already_stopped', async () => {
    await t.api('/api/admin/llm/start', json({ model: model('plain.gguf', { loadMs: 0 }) }));
    expect(await (await t.api('/api/admin/llm/stop', { method: 'POST' })).json()).toEqual({ status: 'stopped' });
    expect(await (await t.api('/api/admin/llm/stop', { method: 'POST' })).json()).toEqual({ status: 'already_stopped' });
  }, 30_000);
});
