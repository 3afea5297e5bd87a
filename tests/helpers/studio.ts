/**
 * Starts a real Studio for integration tests: a temp data directory, a random port, a real
 * SQLite file and (optionally) the stand-in engine as a child process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config.js';
import { silentLogger } from '../../server/logging.js';
import { Studio } from '../../server/studio.js';
import type { StudioOptions } from '../../server/studio-options.js';
import { freePort } from './ports.js';

export const TEST_API_KEY = 'test-key-0123456789';

export interface TestStudio {
  studio: Studio;
  url: string;
  dir: string;
  apiKey: string;
  /** fetch with the API key header. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  /** Sign in and return the `session=...` cookie pair. */
  login(): Promise<string>;
  stop(): Promise<void>;
}

export interface TestStudioOptions {
  env?: Record<string, string>;
  startEngine?: boolean;
  /** Reuse a data directory (restart tests). */
  dir?: string;
  heartbeatMs?: number;
  /** See StudioOptions. */
  sharedFolderRecheckMs?: number;
  /** See StudioOptions: a test that names one mechanism sets the others out of reach. */
  engineProbeMs?: number;
  jobPollMs?: number;
  /** Chat bot options (library loader, backoff and progress timings). */
  chatbot?: StudioOptions['chatbot'];
  /** The clock batch windows are read by. */
  batchClock?: () => number;
  /** What `POST /api/admin/system/restart` and an applied update call to replace Studio. */
  relaunch?: () => void | Promise<void>;
  /** The wait between a notification's attempts. */
  notifySleep?: (ms: number) => Promise<void>;
}

/** Start a Studio; call `stop()` in afterAll/afterEach. */
export async function startTestStudio(options: TestStudioOptions = {}): Promise<TestStudio> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'studio-test-'));
  const env: Record<string, string> = {
    STUDIO_DIR: dir,
    STUDIO_PORT: '0',
    STUDIO_HOST: '127.0.0.1',
    API_KEY: TEST_API_KEY,
    ENGINE_MODE: 'standin',
    ENGINE_PORT: String(await freePort()),
    STANDIN_STEP_MS: '10',
    // No test reaches the internet: a test that wants the node map download serves one itself.
    NODE_MAP_URL: 'off',
    ...options.env,
  };
  const config = await loadConfig(env, { probeEngine: async () => false });
  const studio = Studio.create(config, { logger: silentLogger, console: false, startEngine: options.startEngine ?? false, heartbeatMs: options.heartbeatMs, sharedFolderRecheckMs: options.sharedFolderRecheckMs, engineProbeMs: options.engineProbeMs, jobPollMs: options.jobPollMs, chatbot: options.chatbot, relaunch: options.relaunch, batchClock: options.batchClock, notifySleep: options.notifySleep });
  await studio.start();
  const url = studio.url;
  return {
    studio,
    url,
    dir,
    apiKey: config.apiKey,
    api: (pathname, init = {}) =>
      fetch(url + pathname, { ...init, redirect: 'manual', headers: { 'X-API-Key': config.apiKey, ...(init.headers as Record<string, string>) } }),
    async login() {
      const res = await fetch(`${url}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ api_key: config.apiKey }),
      });
      if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
      return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    },
    async stop() {
      await studio.stop();
      if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
