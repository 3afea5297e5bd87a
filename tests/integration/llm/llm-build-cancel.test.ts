/**
 * "Build from source" with Cancel: a small script stands in for the build (it prints cmake's
 * configure lines and ninja's [n/N] counter, starts a child of its own like cmake starts the
 * compilers, and writes into the build folder). The steps are read from its output; Cancel kills
 * the whole process tree, removes the half-built folder and says "Cancelled"; nothing is installed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeJob } from '../../../server/contracts/llm-runtimes.contract.js';
import { EventBus } from '../../../server/events/event-bus.js';
import { silentLogger } from '../../../server/logging.js';
import { ReleaseSourceClient } from '../../../server/llm/runtimes/release-source.client.js';
import { RuntimesService } from '../../../server/llm/runtimes/runtimes.service.js';
import { startTestStudio } from '../../helpers/studio.js';

const FAKE_BUILD = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const cache = process.env.LLAMA_SERVER_CACHE;
fs.mkdirSync(path.join(cache, 'build'), { recursive: true });
fs.writeFileSync(path.join(cache, 'build', 'half.o'), 'x');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
fs.writeFileSync(process.env.PIDS_FILE, JSON.stringify([process.pid, child.pid]));
console.error('-- The C compiler identification is GNU 12.2.0');
let n = 0;
const tick = setInterval(() => {
  n += 1;
  console.error('[' + n + '/10] Building CXX object ggml/src/part' + n + '.cpp.o');
  if (n === 5) clearInterval(tick);
}, 50);
setInterval(() => {}, 1000);
`;

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

function service(dir: string, pidsFile: string): RuntimesService {
  const script = path.join(dir, 'fake-build.cjs');
  fs.writeFileSync(script, FAKE_BUILD);
  return new RuntimesService({
    runtimesDir: path.join(dir, 'runtimes'),
    releases: new ReleaseSourceClient('http://127.0.0.1:9'),
    downloads: { enqueue: () => null, statusEntries: () => ({}), forget: () => undefined, cancel: async () => false },
    gpu: async () => ({ gpuVendor: null, cudaVersion: null, rocmVersion: null }),
    // The real environment: the service checks git, cmake and c++ before it starts a build.
    env: { ...process.env, PIDS_FILE: pidsFile },
    events: new EventBus({ file: path.join(dir, 'events.jsonl'), logger: silentLogger }),
    logger: silentLogger,
    override: null,
    maxUnpackBytes: 1 << 20,
    sourceBuild: { script, cacheDir: path.join(dir, 'runtimes', 'source') },
    onActiveChanged: async () => undefined,
  });
}

describe('build from source: steps and Cancel', () => {
  it('reads configure and compile n/N, and Cancel kills the whole tree and leaves no half build', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-build-'));
    dirs.push(dir);
    const pidsFile = path.join(dir, 'pids.json');
    const rt = service(dir, pidsFile);
    const before = await rt.view();
    expect(before.source_build.possible).toBe(true);
    expect(before.source_build.reason).toMatch(/release source did not answer/);
    expect(before.source_build.estimate).toMatchObject({ cores: os.availableParallelism(), steps: 221, enough_space: true });

    const job: RuntimeJob = await rt.build(true);
    await until(() => job.step?.name === 'compile' && job.step.done === 5);
    expect(job.step).toEqual({ name: 'compile', done: 5, total: 10 });
    expect(job.log).toContain('-- The C compiler identification is GNU 12.2.0');
    const [script, child] = JSON.parse(fs.readFileSync(pidsFile, 'utf8')) as [number, number];
    expect(alive(script) && alive(child)).toBe(true);
    expect(fs.existsSync(path.join(dir, 'runtimes', 'source', 'build', 'half.o'))).toBe(true);

    const cancelled = await rt.cancelBuild();
    expect(cancelled.phase).toBe('cancelled');
    expect(cancelled.error).toBeNull();
    // The child the script started is gone too, not only the script (the group was killed).
    await until(() => !alive(script) && !alive(child), 5000);
    expect(fs.existsSync(path.join(dir, 'runtimes', 'source'))).toBe(false);
    const after = await rt.view();
    expect(after.installed).toEqual([]);
    expect(after.job?.phase).toBe('cancelled');
    // Nothing runs any more: a second Cancel is refused, a new build may start.
    await expect(rt.cancelBuild()).rejects.toMatchObject({ kind: 'conflict' });
  }, 30_000);
});

describe('POST /api/admin/llm/runtimes/build/cancel', () => {
  it('is 409 with the reason in words when no build runs', async () => {
    const t = await startTestStudio({ env: { LLM_RELEASES_URL: 'http://127.0.0.1:9/repos/ggml-org/llama.cpp' } });
    try {
      const res = await t.api('/api/admin/llm/runtimes/build/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ detail: 'No build from source is running' });
    } finally {
      await t.stop();
    }
  });
});
