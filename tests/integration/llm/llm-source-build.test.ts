/**
 * "Build from source" runs the project's scripts/build-llama-server.mjs with its cache in
 * LLM_SOURCE_BUILD_DIR; pointed at the cache the suite already built, the script answers with the
 * binary at once, which then passes the same smoke test as a download and becomes the active
 * runtime.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import type { RuntimesView } from '../../../server/contracts/llm-runtimes.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const found = spawnSync(process.execPath, [path.join(APP_ROOT, 'scripts', 'build-llama-server.mjs'), '--cached'], { encoding: 'utf8' });
const binary = found.status === 0 ? found.stdout.trim().split('\n').pop()! : null;
let t: TestStudio;

beforeAll(async () => {
  if (!binary) return;
  // The release source answers nothing here: only the source build can provide a runtime.
  t = await startTestStudio({ env: { LLM_SOURCE_BUILD_DIR: path.dirname(path.dirname(path.dirname(binary))), LLM_RELEASES_URL: 'http://127.0.0.1:9/repos/ggml-org/llama.cpp' } });
});
afterAll(async () => t?.stop());

describe('build from source', () => {
  it('builds (here: finds the cached build), smoke-tests and activates it', async () => {
    if (!binary) expect.fail(found.stderr.trim() || 'llama-server is not built (node scripts/build-llama-server.mjs builds it)');
    const before = (await (await t.api('/api/admin/llm/runtimes')).json()) as RuntimesView;
    expect(before.available).toBeNull();
    expect(before.available_error).toMatch(/did not answer/);
    expect(before.source_build).toMatchObject({ possible: true, reason: 'The release source did not answer: you can build from source instead' });
    const res = await t.api('/api/admin/llm/runtimes/build', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(202);
    let view: RuntimesView;
    do {
      await new Promise((r) => setTimeout(r, 300));
      view = (await (await t.api('/api/admin/llm/runtimes')).json()) as RuntimesView;
    } while (view.job?.phase === 'building' || view.job?.phase === 'testing');
    expect(view.job?.error ?? null).toBeNull();
    expect(view.active).toBe('source');
    expect(view.binary).toBe(binary);
    expect(view.installed[0]).toMatchObject({ id: 'source', variant: 'cpu', origin: 'source', version: expect.stringMatching(/\d/) });
  }, 60_000);
});
