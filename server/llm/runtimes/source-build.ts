/**
 * "Build from source": the project's own `scripts/build-llama-server.mjs` (llama.cpp's source as
 * the node-llama-cpp package ships it, built with cmake; minutes on a small machine), run with its
 * cache folder under the runtimes folder (`LLM_SOURCE_BUILD_DIR`), then the same smoke test as a
 * download. The script's last stdout line is the binary's path; everything else is progress.
 */
import path from 'node:path';
import { runCommand } from '../../process/run-command.js';
import type { RuntimeJob } from '../../contracts/llm-runtimes.contract.js';
import { recordOf } from './runtime-install.js';
import type { InstalledBuild } from './runtime.store.js';
import { smokeTest } from './smoke-test.js';

export interface SourceBuildOptions {
  script: string;
  cacheDir: string;
  runtimesDir: string;
  env: NodeJS.ProcessEnv;
  smokeTimeoutMs?: number;
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
  const run = await runCommand(process.execPath, [o.script], {
    env: { ...o.env, LLAMA_SERVER_CACHE: o.cacheDir },
    timeoutMs: BUILD_TIMEOUT_MS,
    onLine: (line, stream) => (stream === 'err' ? log(line) : undefined),
  });
  const binary = run.stdout.trim().split('\n').pop()?.trim() ?? '';
  if (run.code !== 0 || !binary) throw new Error(`The build failed (exit ${run.code ?? 'none'}${run.timedOut ? ', timed out' : ''}): ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  job.phase = 'testing';
  const smoke = await smokeTest({ binary, env: o.env, expectGpu: false, workDir: path.join(o.runtimesDir, 'smoke'), loadTimeoutMs: o.smokeTimeoutMs });
  job.log = smoke.log;
  if (!smoke.ok) throw new Error(`The build from source failed its smoke test: ${smoke.error}`);
  const tag = smoke.version?.split(/\s/)[0] ?? 'source';
  return recordOf('source', tag, 'cpu', 'cpu', 'source', o.cacheDir, binary, smoke, 'built from source on this machine');
}
