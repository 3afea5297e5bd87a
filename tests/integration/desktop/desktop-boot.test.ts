/**
 * The desktop's boot path without Electron: `startStudio` is what main runs in-process, and the
 * same code as headless. It must bring up the server and the engine and stop both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startStudio } from '../../../main/studio-handle.js';
import { silentLogger } from '../../../server/logging.js';
import { freePort } from '../../helpers/ports.js';

describe('startStudio (the shared boot path)', () => {
  it('starts the server and the stand-in engine, reports state, and stops both', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-boot-'));
    const handle = await startStudio({
      env: { STUDIO_DIR: dir, STUDIO_PORT: '0', API_KEY: 'boot-key-0123456789', STUDIO_HOST: '127.0.0.1', ENGINE_MODE: 'standin', ENGINE_PORT: String(await freePort()) },
      logger: silentLogger,
    });
    try {
      expect((await fetch(`${handle.url}/api/health`)).status).toBe(200);
      await handle.studio.engineReady(30_000);
      expect(handle.engineState()).toMatchObject({ mode: 'standin', status: 'running' });
      expect(handle.llmState().status).toBe('unavailable');
      expect(handle.lanUrl()).toBeNull();
    } finally {
      await handle.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await expect(fetch(`${handle.url}/api/health`)).rejects.toThrow();
  }, 60_000);
});
