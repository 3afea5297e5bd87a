/**
 * From "Install" on the setup page to the first real image, on this machine's CPU, with the real
 * engine of ../shared/real-engine/ (what stands in for the repository and the package index is in
 * tests/engine/real-engine-sources.ts): the install job's steps (clone, environment, packages,
 * check, first start with the smoke prompt), Studio's restart onto the new engine, then the
 * shipped SD 1.5 workflow at 64×64 and 3 steps with the random-weight checkpoint (sd15-checkpoint.ts).
 * Without the real engine built here it prints why it skips.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeIndex } from '../helpers/fake-engine-sources.js';
import { execute, waitForJob } from '../helpers/runner.js';
import { offlineInstallEnv, report, runJob } from '../helpers/setup-install.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { ensureVenvSupport, FIRST_TAG, REAL_REPO_URL, realEngineHome, realEngineRepo, realEngineWheels, writeBasePython } from '../engine/real-engine-sources.js';
import { SD15_FILE, sd15Checkpoint, writeTokenizersFix } from '../engine/sd15-checkpoint.js';
import { skippedRow, type TargetRow } from './targets.js';

const MEASURE = 'Install to first real image (CPU, SD 1.5 64×64, 3 steps)';
const TARGET = 'measured only (no target)';

export async function run(): Promise<TargetRow[]> {
  const home = realEngineHome();
  if (!home) {
    const why = 'the real engine of ../shared/real-engine/ is not built here (REALENGINE_HOME, default /tmp/realengine)';
    console.log(`engine install: skipped (${why})`);
    return [skippedRow(MEASURE, TARGET, why)];
  }
  ensureVenvSupport(home);
  const index = await startFakeIndex(realEngineWheels(home));
  const root = fs.mkdtempSync(path.join(home, 'studio-bench-install-'));
  let t: TestStudio | null = null;
  try {
    const userBase = writeTokenizersFix(root, path.join(home, 'bin', 'engine-python'));
    const checkpoint = sd15Checkpoint(path.join(home, 'ComfyUI'), path.join(home, 'bin', 'engine-python'), path.join(root, 'make'), userBase);
    if (checkpoint.made) console.log(`  (the SD 1.5 checkpoint was made first, once: ${checkpoint.made.seconds.toFixed(1)} s, not counted)`);
    const dir = path.join(root, 'studio');
    fs.mkdirSync(path.join(dir, 'models', 'checkpoints'), { recursive: true });
    fs.linkSync(checkpoint.file, path.join(dir, 'models', 'checkpoints', SD15_FILE));
    const env = {
      ...offlineInstallEnv(root, realEngineRepo(home), index, { repoUrl: REAL_REPO_URL, python: writeBasePython(path.join(root, 'base-python'), home) }),
      PYTHONUSERBASE: userBase,
    };
    t = await startTestStudio({ dir, env, relaunch: () => undefined });
    const started = performance.now();
    const job = await runJob(t, '/api/admin/setup/engine', { version: FIRST_TAG });
    if (job.status !== 'finished') throw new Error(`the install failed: ${job.error}`);
    const installedMs = performance.now() - started;

    // Studio restarts onto the new engine (the switch's restart, done here by hand).
    await t.stop();
    t = await startTestStudio({ dir, env, startEngine: true, relaunch: () => undefined });
    let r = await report(t);
    while (r.engine.status !== 'running' && r.engine.status !== 'crashed') r = await new Promise((resolve) => setTimeout(resolve, 200)).then(() => report(t!));
    if (r.engine.status !== 'running') throw new Error(`the installed engine did not start: ${r.engine.error_lines.join(' / ')}`);
    const runningMs = performance.now() - started;

    const { prompt_id } = await execute(t.api, 'txt2img-sd15', { params: { positive: 'a red fox in the snow', negative: 'blurry', width: 64, height: 64, steps: 3, cfg: 5, seed: 42 } });
    const done = await waitForJob(t.api, prompt_id, ['completed', 'error'], 900_000);
    if (done.status !== 'completed') throw new Error(`the first image failed: ${t.studio.jobs.get(prompt_id)?.error}`);
    const imageMs = performance.now() - started;

    const s = job.timings;
    const packages = (s.torch ?? 0) + (s.requirements ?? 0);
    console.log(`  install job ${(installedMs / 1000).toFixed(1)} s: clone ${s.clone} s, environment ${s.environment} s, packages ${packages.toFixed(1)} s (torch ${s.torch} s: the base Python's, requirements ${s.requirements} s), check ${s.check} s, first start + smoke prompt ${s.prove} s`);
    console.log(`  Studio restart onto it until the engine runs: ${((runningMs - installedMs) / 1000).toFixed(1)} s`);
    console.log(`  first image (checkpoint load, CLIP, 3 steps, VAE decode, PNG): ${((imageMs - runningMs) / 1000).toFixed(1)} s`);
    console.log(`  Install → first real image: ${(imageMs / 1000).toFixed(1)} s (load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')} on ${os.cpus().length} cores)`);
    // No target in the issue: the numbers above are the measure, and the table has no row for it.
    return [];
  } finally {
    await t?.stop();
    await index.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
