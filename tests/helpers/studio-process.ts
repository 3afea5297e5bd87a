/**
 * Studio as a real child process (`server/main.ts` under tsx), for tests that kill it: its own
 * process group, a health wait, SIGKILL, and the captured output for failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { APP_ROOT } from '../../server/config.js';
import { freePort } from './ports.js';
import { TEST_API_KEY } from './studio.js';

export interface StudioProcess {
  child: ChildProcess;
  url: string;
  port: number;
  /** stdout + stderr so far. */
  output(): string;
  api(pathname: string, init?: RequestInit): Promise<Response>;
  /** SIGKILL the whole process group and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful) and wait for the exit. */
  stop(): Promise<void>;
}

export interface StudioProcessOptions {
  readyMs?: number;
  /** Run the compiled server as `npm start` does, `dist/server/start.cjs` (the one-file bundle's entry; benchmarks; built by `npm run bench`), instead of the sources under tsx. */
  compiled?: boolean;
  /** When `/api/health`'s answer means ready (default: 2xx; safe mode answers 503). */
  ready?: (health: Response) => boolean;
}

/** Start `server/main.ts` with `env` over the test defaults; resolves once `/api/health` answers. */
export async function startStudioProcess(env: Record<string, string>, options: StudioProcessOptions = {}): Promise<StudioProcess> {
  const readyMs = options.readyMs ?? 30_000;
  const port = await freePort();
  const entry = options.compiled ? [path.join(APP_ROOT, 'dist', 'server', 'start.cjs')] : ['--import', 'tsx', path.join(APP_ROOT, 'server', 'main.ts')];
  const child = spawn(process.execPath, entry, {
    cwd: APP_ROOT,
    env: { ...process.env, STUDIO_PORT: String(port), STUDIO_HOST: '127.0.0.1', API_KEY: TEST_API_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, sig);
      } catch {}
    }
    await exited;
  };
  const proc: StudioProcess = {
    child,
    url,
    port,
    output: () => log,
    api: (pathname, init = {}) => fetch(url + pathname, { ...init, headers: { 'X-API-Key': TEST_API_KEY, ...(init.headers as Record<string, string>) } }),
    kill: () => signal('SIGKILL'),
    stop: () => signal('SIGTERM'),
  };
  const end = Date.now() + readyMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Studio exited with ${child.exitCode}:\n${log}`);
    try {
      if ((options.ready ?? ((res: Response) => res.ok))(await fetch(`${url}/api/health`))) return proc;
    } catch {}
    if (Date.now() > end) {
      await proc.kill();
      throw new Error(`Studio not ready after ${readyMs} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
