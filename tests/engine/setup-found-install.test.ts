/**
 * The setup page with a real engine (ComfyUI 0.29.0 on this machine's CPU, ../shared/real-engine/):
 * found in the home folder with its version and a working torch, proven (it boots on a port of
 * its own and runs the smoke prompt: an empty image into a preview), switched to, and run by the
 * next Studio without ENGINE_DIR. Needs ENGINE_DIR + ENGINE_PYTHON of a real engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, report, runJob, storedChoice } from '../helpers/setup-install.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

const engineDir = process.env.ENGINE_DIR;
const enginePython = process.env.ENGINE_PYTHON;
const available = Boolean(engineDir && enginePython);
if (!available) console.warn('[test:engine] setup: skipped, no real engine given (ENGINE_DIR + ENGINE_PYTHON)');

let root: string;
let t: TestStudio;
let env: Record<string, string>;

beforeAll(async () => {
  if (!available) return;
  // Beside the engine: an engine that runs in a chroot (../shared/real-engine/) sees only that folder, and Studio's data must be there for it.
  root = fs.mkdtempSync(path.join(path.dirname(engineDir!), 'studio-test-setup-'));
  const home = path.join(root, 'home');
  // The user's ~/ComfyUI, with its environment beside it (~/venv), as a manual install leaves them.
  fs.mkdirSync(path.join(home, 'venv', 'bin'), { recursive: true });
  fs.symlinkSync(engineDir!, path.join(home, 'ComfyUI'));
  fs.writeFileSync(path.join(home, 'venv', 'bin', 'python'), `#!/bin/sh\nexec '${enginePython!}' "$@"\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(home, 'venv', 'models'), { recursive: true });
  env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ENGINE_MODE: 'automatic', STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi', ...(process.env.REALENGINE_HOME ? { REALENGINE_HOME: process.env.REALENGINE_HOME } : {}) };
  t = await startTestStudio({ dir: path.join(root, 'studio'), env });
});

afterAll(async () => {
  await t?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!available)('a real engine found on the machine', () => {
  it('is found in the home folder with its version and a torch that works on this CPU', async () => {
    const r = await report(t);
    expect(r.first_start).toBe(true);
    const found = r.installs.find((i) => i.place === 'home');
    expect(found).toMatchObject({ dir: fs.realpathSync(engineDir!), version: '0.29.0', python: path.join(env.HOME!, 'venv', 'bin', 'python'), problem: null });
    expect(found?.torch).toMatchObject({ works: true, cuda: false });
    expect(found?.torch?.torch).toMatch(/^2\./);
  });

  it('is proven on a port of its own (smoke prompt) and becomes the engine', async () => {
    const job = await runJob(t, '/api/admin/setup/use', { dir: path.join(env.HOME!, 'ComfyUI'), mode: 'managed' });
    expect(job.error).toBeNull();
    expect(job.steps.map((s) => [s.name, s.status])).toEqual([['check', 'done'], ['prove', 'done'], ['switch', 'done']]);
    expect(job.log.join('\n')).toContain('smoke prompt done: the engine works');
    expect(storedChoice(t.dir)?.current).toMatchObject({ dir: path.join(env.HOME!, 'ComfyUI'), origin: 'found', mode: 'managed', version: '0.29.0' });
    expect((await eventsOf(t, 'engine.')).map((e) => e.type)).toEqual(expect.arrayContaining(['engine.proved', 'engine.switched']));
    console.log(`[test:engine] setup: proof of the real engine took ${job.timings.prove} s`);
  }, 300_000);

  it('runs as the managed engine of the next Studio, with no ENGINE_DIR', async () => {
    const dir = t.dir;
    await t.stop();
    t = await startTestStudio({ dir, env, startEngine: true });
    let r = await report(t);
    while (r.engine.status === 'starting' || r.engine.status === 'stopped') r = await new Promise((resolve) => setTimeout(resolve, 500)).then(() => report(t));
    expect(r.engine).toMatchObject({ mode: 'managed', status: 'running', chosen_by: 'setup', version: '0.29.0' });
    expect(r.first_start).toBe(false);
  }, 300_000);
});
