import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_API_KEY, loadConfig } from '../../../server/config.js';

const noEngine = { probeEngine: async () => false };

describe('loadConfig', () => {
  it('applies the defaults of the spec', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-cfg-'));
    const c = await loadConfig({ STUDIO_DIR: dir }, noEngine);
    expect(c.port).toBe(8000);
    expect(c.engine.port).toBe(8188);
    expect(c.engine.standinStepMs).toBe(300);
    expect(c.llm.port).toBe(8080);
    expect(c.apiKey).toBe(DEFAULT_API_KEY);
    expect(c.devMode).toBe(false);
    expect(c.paths.dbFile).toBe(path.join(dir, 'db', 'studio.db'));
    expect(c.paths.sessionSecret).toBe(path.join(dir, '.session_secret'));
    expect(Object.isFrozen(c) && Object.isFrozen(c.paths)).toBe(true);
  });

  it('listens on loopback only while the weak default key is in use', async () => {
    const weak = await loadConfig({ STUDIO_DIR: '/tmp/x', STUDIO_HOST: '0.0.0.0' }, noEngine);
    expect(weak.apiKeyIsDefault).toBe(true);
    expect(weak.host).toBe('127.0.0.1');
    const strong = await loadConfig({ STUDIO_DIR: '/tmp/x', API_KEY: 'a-real-secret-of-20ch' }, noEngine);
    expect(strong.host).toBe('0.0.0.0');
    const chosen = await loadConfig({ STUDIO_DIR: '/tmp/x', API_KEY: 'a-real-secret-of-20ch', STUDIO_HOST: '10.0.0.5' }, noEngine);
    expect(chosen.host).toBe('10.0.0.5');
  });

  it('chooses the engine mode: ENGINE_MODE, else managed with ENGINE_DIR, else external when one answers, else standin', async () => {
    const base = { STUDIO_DIR: '/tmp/x' };
    expect((await loadConfig(base, noEngine)).engine.mode).toBe('standin');
    expect((await loadConfig(base, { probeEngine: async () => true })).engine.mode).toBe('external');
    expect((await loadConfig({ ...base, ENGINE_DIR: '/opt/ComfyUI' }, { probeEngine: async () => true })).engine.mode).toBe('managed');
    expect((await loadConfig({ ...base, ENGINE_MODE: 'external' }, noEngine)).engine.mode).toBe('external');
    // The settings page shows `automatic` as the default; written out, it decides the same way.
    expect((await loadConfig({ ...base, ENGINE_MODE: 'automatic', ENGINE_DIR: '/opt/ComfyUI' }, noEngine)).engine.mode).toBe('managed');
    await expect(loadConfig({ ...base, ENGINE_MODE: 'gpu' }, noEngine)).rejects.toBeInstanceOf(ConfigError);
    await expect(loadConfig({ ...base, ENGINE_MODE: 'managed' }, noEngine)).rejects.toThrow(/ENGINE_DIR/);
  });

  it('rejects malformed numbers and URLs with the variable name', async () => {
    await expect(loadConfig({ STUDIO_DIR: '/tmp/x', STUDIO_PORT: 'eighty' }, noEngine)).rejects.toThrow(/STUDIO_PORT/);
    await expect(loadConfig({ STUDIO_DIR: '/tmp/x', MODELHUB_BASE_URL: 'not a url' }, noEngine)).rejects.toThrow(/MODELHUB_BASE_URL/);
  });

  it('takes outside-service base URLs from the environment', async () => {
    const c = await loadConfig({ STUDIO_DIR: '/tmp/x', MODELHUB_BASE_URL: 'http://127.0.0.1:9999/', REPOHOST_BASE_URL: 'http://127.0.0.1:9998' }, noEngine);
    expect(c.urls.modelhub).toBe('http://127.0.0.1:9999');
    expect(c.urls.repohost).toBe('http://127.0.0.1:9998');
  });

  it("snapshots for the settings page only the declared variables and the hosting platform's", async () => {
    const c = await loadConfig({ STUDIO_DIR: '/tmp/x', REPO_URL: ' https://example.invalid/r.git ', RUNPOD_POD_ID: 'pod-1', STUDIO_UNKNOWN: 'x', PATH: '/usr/bin', HUB_TOKEN: '  ' }, noEngine);
    expect(c.reportedEnv).toEqual({ STUDIO_DIR: '/tmp/x', REPO_URL: 'https://example.invalid/r.git', RUNPOD_POD_ID: 'pod-1' });
  });
});
