/**
 * Driving the setup page's install over HTTP in tests: start one, wait until it has ended (by
 * polling the report the page polls), and read the stored engine choice.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { InstallState, SetupReport } from '../../server/contracts/setup.contract.js';
import type { EngineChoice } from '../../server/config/engine-choice.js';
import { ENGINE_REPO_URL, gitMappingEnv, type FakeIndex } from './fake-engine-sources.js';
import type { TestStudio } from './studio.js';

/** The machine's own Python (an absolute path: the tests give Studio a HOME of its own, which breaks version-manager shims). */
export const HOST_PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)']).toString().trim();

/**
 * The environment of an offline install: the engine's repository behind `https://` (git's
 * insteadOf to `bare`), torch and the requirements from `index`, this machine's Python (or
 * `options.python`), no GPU tool
 * answering (the CPU build), a HOME of its own under `root`, and the setup page deciding the engine.
 */
export function offlineInstallEnv(
  root: string,
  bare: string,
  index: FakeIndex,
  options: { pathPrefix?: string; repoUrl?: string; python?: string } = {},
): Record<string, string> {
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  return {
    ...gitMappingEnv(bare),
    PATH: `${options.pathPrefix ?? ''}${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    ENGINE_MODE: 'automatic',
    ENGINE_REPO_URL: options.repoUrl ?? ENGINE_REPO_URL,
    ENGINE_TORCH_INDEX_URL: index.torchUrl,
    ENGINE_PACKAGE_INDEX_URL: index.simpleUrl,
    ENGINE_INSTALL_PYTHON: options.python ?? HOST_PYTHON,
    STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi',
    PIP_NO_CACHE_DIR: '1',
    // This machine's own pip configuration (its constraints, its local mirrors) stays out.
    PIP_CONFIG_FILE: '/dev/null',
  };
}

export async function report(t: TestStudio, fresh = false): Promise<SetupReport> {
  const res = await t.api(`/api/admin/setup${fresh ? '?fresh=1' : ''}`);
  if (res.status !== 200) throw new Error(`GET /api/admin/setup: ${res.status} ${await res.text()}`);
  return (await res.json()) as SetupReport;
}

/** Post `body` to `route`, expect 202, and wait for the job to end. */
export async function runJob(t: TestStudio, route: string, body: Record<string, unknown>): Promise<InstallState> {
  const res = await t.api(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 202) throw new Error(`POST ${route}: ${res.status} ${await res.text()}`);
  const started = (await res.json()) as InstallState;
  return waitForJob(t, started.id);
}

/** Poll the report until job `id` is no longer running. */
export async function waitForJob(t: TestStudio, id: string): Promise<InstallState> {
  for (;;) {
    const job = (await report(t)).install;
    if (job && job.id === id && job.status !== 'running') return job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The stored choice (`STUDIO_DIR/engine/engine.json`), or null when none was stored. */
export function storedChoice(dir: string): EngineChoice | null {
  const file = path.join(dir, 'engine', 'engine.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as EngineChoice) : null;
}

/** The folders under `STUDIO_DIR/engine` but the engine's own (`temp`, the trial's `.trial`): installed versions, and anything a failed install left. */
export function engineFolders(dir: string): string[] {
  const root = path.join(dir, 'engine');
  const own = new Set(['temp', '.trial', 'custom_nodes']);
  return fs.existsSync(root) ? fs.readdirSync(root).filter((name) => !own.has(name) && fs.statSync(path.join(root, name)).isDirectory()).sort() : [];
}

/** Events of `types` from the event log route, oldest first. */
export async function eventsOf(t: TestStudio, prefix: string): Promise<Array<{ type: string; message: string; data: Record<string, unknown> }>> {
  const res = await t.api(`/api/admin/events?types=${encodeURIComponent(`${prefix}*`)}&limit=200`);
  return (await res.json()) as Array<{ type: string; message: string; data: Record<string, unknown> }>;
}
