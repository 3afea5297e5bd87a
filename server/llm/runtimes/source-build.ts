/**
 * "Build from source": the project's own `scripts/build-llama-server.mjs` (llama.cpp's source as
 * the node-llama-cpp package ships it, built with cmake; minutes on a small machine), run with its
 * cache folder under the runtimes folder (`LLM_SOURCE_BUILD_DIR`), then the same smoke test as a
 * download. The script's last stdout line is the binary's path; everything else is progress, read
 * into steps (`build-steps.ts`). The script and every tool it starts (npm, git, cmake, ninja, the
 * compilers) run in one process group: Cancel kills the group, then removes the half-built folder.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../../process/run-command.js';
import type { RuntimeJob } from '../../contracts/llm-runtimes.contract.js';
import { failureLine, nextStep } from './build-steps.js';
import { recordOf } from './runtime-install.js';
import type { InstalledBuild } from './runtime.store.js';
import { smokeTest } from './smoke-test.js';

export interface SourceBuildOptions {
  script: string;
  cacheDir: string;
  runtimesDir: string;
  env: NodeJS.ProcessEnv;
  smokeTimeoutMs?: number;
  /** Aborting kills the build's whole process group (Cancel). */
  signal?: AbortSignal;
}

/** The build was cancelled: its processes are gone and its half-built folder removed. */
export class BuildCancelled extends Error {
  constructor() {
    super('Cancelled');
  }
}

const BUILD_TIMEOUT_MS = 3 * 60 * 60_000;

/** Whether git, cmake and a C++ compiler are installed (what the script needs). */
export async function sourceBuildTools(env: NodeJS.ProcessEnv): Promise<{ ok: boolean; reason: string }> {
  for (const tool of ['git', 'cmake', 'c++']) {
    const run = await runCommand(tool, ['--version'], { env, timeoutMs: 10_000 });
    if (run.code !== 0) return { ok: false, reason: `Building from source needs ${tool}, which is not installed` };
  }
  return { ok: true, reason: 'git, cmake and a C++ compiler are installed' };
}

/** Run the build script, smoke-test its binary, and return the record to store. */
export async function buildFromSource(o: SourceBuildOptions, job: RuntimeJob): Promise<InstalledBuild> {
  const log = (line: string) => {
    job.log.push(line.slice(0, 400));
    if (job.log.length > 40) job.log.splice(0, job.log.length - 40);
  };
  job.step = { name: 'source', done: 0, total: 0 };
  const run = await runCommand(process.execPath, [o.script], {
    env: { ...o.env, LLAMA_SERVER_CACHE: o.cacheDir },
    timeoutMs: BUILD_TIMEOUT_MS,
    signal: o.signal,
    onLine: (line, stream) => {
      if (stream !== 'err') return;
      log(line);
      job.step = nextStep(job.step ?? { name: 'source', done: 0, total: 0 }, line);
    },
  });
  if (run.aborted) {
    // The group is dead: nothing writes into the folder any more, so what is there is only half a build.
    await fsp.rm(o.cacheDir, { recursive: true, force: true, maxRetries: 2 });
    throw new BuildCancelled();
  }
  const binary = run.stdout.trim().split('\n').pop()?.trim() ?? '';
  if (run.code !== 0 || !binary) throw new Error(`The build failed (exit ${run.code ?? 'none'}${run.timedOut ? ', timed out' : ''}): ${failureLine(run.stderr) || 'no output'}`);
  job.phase = 'testing';
  const smoke = await smokeTest({ binary, env: o.env, expectGpu: false, workDir: path.join(o.runtimesDir, 'smoke'), loadTimeoutMs: o.smokeTimeoutMs });
  job.log = smoke.log;
  if (!smoke.ok) throw new Error(`The build from source failed its smoke test: ${smoke.error}`);
  const tag = smoke.version?.split(/\s/)[0] ?? 'source';
  return recordOf({ id: 'source', tag, variant: 'cpu', backend: 'cpu', origin: 'source', dir: o.cacheDir, binary, reason: 'built from source on this machine' }, smoke);
}
