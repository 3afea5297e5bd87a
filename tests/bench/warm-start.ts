/**
 * The compiled server's entry and the first start after a build: it compiles everything and writes
 * the V8 code cache beside the bundle (scripts/server-entry.cjs), as the first `npm start` after a
 * compile does. run.ts makes that start once after building, so every bench measures the starts
 * that follow (and none has the cache written in the middle of its measurement).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../helpers/ports.js';

/** What `npm start` runs (scripts/start.mjs): the one-file bundle through its code cache. */
export function entryOf(root: string): string {
  return path.join(root, 'dist', 'server', 'start.cjs');
}

/** A bench Studio's environment: its own data folder and ports, no engine (an external one at a closed port). */
export async function studioEnv(dir: string): Promise<NodeJS.ProcessEnv> {
  return {
    ...process.env,
    STUDIO_DIR: dir,
    STUDIO_PORT: String(await freePort()),
    STUDIO_HOST: '127.0.0.1',
    API_KEY: 'bench-key-0123456789',
    ENGINE_MODE: 'external',
    ENGINE_PORT: String(await freePort()),
  };
}

/** One unmeasured start that stays up until the code cache beside the bundle is written. */
export async function warmStart(root: string): Promise<void> {
  const serverDir = path.dirname(entryOf(root));
  const cached = () => fs.readdirSync(serverDir).some((name) => name.endsWith('.v8-cache'));
  if (cached()) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
  const child = spawn(process.execPath, [entryOf(root)], { env: await studioEnv(dir), stdio: 'ignore', detached: true });
  try {
    const started = performance.now();
    while (!cached() && performance.now() - started < 60_000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    if (!cached()) console.log('(the first start wrote no code cache: every start measured compiles everything)');
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {}
    await new Promise((r) => child.exitCode === null ? child.once('exit', r) : r(null));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
