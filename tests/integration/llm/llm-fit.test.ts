/**
 * What fits: the LLM catalog's entries estimated against the GPU memory llama.cpp reports
 * (`--list-devices`, here from a stand-in llama-server that reports a 6000 MiB-free GPU), and the
 * automatic `n_gpu_layers` (the default, -1) that the same estimate passes to the server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import type { FitView } from '../../../server/contracts/llm-fit.contract.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const FAKE = path.join(APP_ROOT, 'tests', 'fixtures', 'children', 'fake-llama-server.mjs');
let t: TestStudio;
let dir: string;
const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-llm-fit-'));
  const binary = path.join(dir, 'llama-server');
  fs.writeFileSync(
    binary,
    `#!/bin/sh\nif [ "$1" = "--list-devices" ]; then printf 'Available devices:\\n  CUDA0: Fake GPU (8192 MiB, 6000 MiB free)\\n'; exit 0; fi\nexec "${process.execPath}" "${FAKE}" "$@"\n`,
    { mode: 0o755 },
  );
  t = await startTestStudio({ env: { LLM_BINARY: binary, LLM_PORT: String(await freePort()) } });
  fs.mkdirSync(t.studio.config.paths.llmModels, { recursive: true });
  fs.writeFileSync(path.join(t.studio.config.paths.llmModels, 'm.gguf'), JSON.stringify({ loadMs: 50 }));
});
afterAll(async () => {
  await t.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ngl = () => {
  const lines = fs.readFileSync(path.join(t.studio.config.paths.llmModels, 'm.gguf.record.jsonl'), 'utf8').trim().split('\n');
  const argv = (JSON.parse(lines[lines.length - 1]!) as { argv: string[] }).argv;
  return argv[argv.indexOf('-ngl') + 1];
};

describe('what fits', () => {
  it('estimates every LLM catalog entry against the free GPU memory at the configured context', async () => {
    const view = (await (await t.api('/api/admin/llm/fit')).json()) as FitView;
    expect(view.gpu).toEqual({ device: 'CUDA0: Fake GPU', free_bytes: 6000 * 1024 * 1024, total_bytes: 8192 * 1024 * 1024, source: 'llama.cpp' });
    expect(view.ctx_size).toBe(4096);
    expect(view.models['qwen2.5-0.5b-instruct-q4_k_m.gguf']).toMatchObject({ fit: 'gpu' });
    const long = (await (await t.api('/api/admin/llm/fit?ctx_size=262144')).json()) as FitView;
    const partial = Object.values(long.models).find((m) => m.fit === 'partial');
    expect(partial?.gpu_layers).toBeGreaterThan(0);
    expect(partial!.gpu_layers).toBeLessThan(partial!.total_layers);
    expect((await t.api('/api/admin/llm/fit?ctx_size=lots')).status).toBe(400);
  });

  it('chooses n_gpu_layers from the estimate when the configuration leaves it on automatic', async () => {
    const status = (await (await t.api('/api/admin/llm/status')).json()) as { config: { n_gpu_layers: number } };
    expect(status.config.n_gpu_layers).toBe(-1);
    expect((await t.api('/api/admin/llm/start', json({ model: 'm.gguf' }))).status).toBe(200);
    expect(ngl()).toBe('25'); // a tiny file: every layer (24 guessed + output) fits
    expect((await t.api('/api/admin/llm/start', json({ model: 'm.gguf', ctx_size: 2_000_000 }))).status).toBe(200);
    expect(ngl()).toBe('1'); // a 2 M context's KV cache leaves room for one layer
    expect((await t.api('/api/admin/llm/start', json({ model: 'm.gguf', n_gpu_layers: 7 }))).status).toBe(200);
    expect(ngl()).toBe('7'); // set by hand: passed as it is
    await t.api('/api/admin/llm/stop', { method: 'POST' });
  });
});
