/**
 * System status, uptime and telemetry against a real Studio: a fake `nvidia-smi` on PATH, fake
 * cgroup v2 and v1 memory files, and an installed `version.json` in a temp app directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SystemStatus } from '../../../server/contracts/system.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { connectStudioWs, until } from '../../helpers/studio-ws.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A directory holding an `nvidia-smi` that prints one GPU line the way the real one does. */
function fakeNvidiaSmi(): string {
  const dir = tempDir('fake-smi-');
  const script = path.join(dir, 'nvidia-smi');
  fs.writeFileSync(script, '#!/bin/sh\necho "NVIDIA Test GPU, 24576, 6144, 37, 55"\n', { mode: 0o755 });
  return dir;
}

function writeFiles(root: string, files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

async function studio(env: Record<string, string>): Promise<TestStudio> {
  const t = await startTestStudio({ env });
  cleanups.push(() => t.stop());
  return t;
}

async function json<T = Record<string, unknown>>(res: Response | Promise<Response>): Promise<T> {
  const r = await res;
  expect(r.status).toBe(200);
  return (await r.json()) as T;
}

describe('GET /api/admin/telemetry', () => {
  it('reads the GPU from nvidia-smi on PATH and memory from the cgroup v2 limit', async () => {
    const cgroup = writeFiles(tempDir('cg2-'), {
      'memory.max': `${2 * GIB}\n`,
      'memory.current': `${GIB + 256 * MIB}\n`,
      'memory.stat': `anon 1000\ninactive_file ${256 * MIB}\nactive_file 5\n`,
    });
    const t = await studio({ PATH: `${fakeNvidiaSmi()}:${process.env.PATH ?? ''}`, STUDIO_CGROUP_ROOT: cgroup });
    const body = await json(t.api('/api/admin/telemetry'));
    expect(body.gpu).toEqual({ name: 'NVIDIA Test GPU', vram_total: 24576 * MIB, vram_used: 6144 * MIB, vram_percent: 25, util_percent: 37, temp_c: 55 });
    expect(body).toMatchObject({ ram_total: 2 * GIB, ram_used: GIB, ram_percent: 50 });
    expect(body.cpu_percent).toEqual(expect.any(Number));
    expect(body.cpu_percent as number).toBeGreaterThanOrEqual(0);
    const statfs = fs.statfsSync(t.dir);
    expect(body.disk_total).toBe(statfs.blocks * statfs.bsize);
    expect(body.disk_percent as number).toBeGreaterThan(0);
    expect(body.disk_used as number).toBeLessThanOrEqual(body.disk_total as number);
  });

  it('falls back to cgroup v1 limits, and reports gpu null without nvidia-smi', async () => {
    const cgroup = writeFiles(tempDir('cg1-'), {
      'memory/memory.limit_in_bytes': `${GIB}\n`,
      'memory/memory.usage_in_bytes': `${512 * MIB}\n`,
      'memory/memory.stat': 'total_inactive_file 0\n',
    });
    const t = await studio({ STUDIO_NVIDIA_SMI: path.join(cgroup, 'no-such-program'), STUDIO_CGROUP_ROOT: cgroup });
    const body = await json(t.api('/api/admin/telemetry'));
    expect(body.gpu).toBeNull();
    expect(body).toMatchObject({ ram_total: GIB, ram_used: 512 * MIB, ram_percent: 50 });
  });

  it('uses the host memory when no cgroup sets a limit', async () => {
    const cgroup = writeFiles(tempDir('cg-none-'), { 'memory.max': 'max\n', 'memory.current': '12345\n' });
    const t = await studio({ STUDIO_CGROUP_ROOT: cgroup, STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' });
    const body = await json(t.api('/api/admin/telemetry'));
    expect(body.ram_total).toBe(os.totalmem());
  });

  it('samples into a history and pushes each sample on the WebSocket', async () => {
    const t = await studio({ STUDIO_TELEMETRY_SAMPLE_MS: '150', PATH: `${fakeNvidiaSmi()}:${process.env.PATH ?? ''}` });
    const ws = await connectStudioWs(t.url, t.apiKey);
    cleanups.push(() => ws.close());
    const pushed = await until(() => ws.ofType('telemetry.sample')[1], 'two telemetry frames');
    expect(pushed.data).toMatchObject({ gpu: { name: 'NVIDIA Test GPU' }, cpu_percent: expect.any(Number), timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*[+-]\d\d:\d\d$/) });
    const history = await json<{ interval_ms: number; window_ms: number; samples: Array<{ timestamp: string }> }>(t.api('/api/admin/telemetry/history'));
    expect(history.interval_ms).toBe(150);
    expect(history.window_ms).toBe(30 * 60_000);
    expect(history.samples.length).toBeGreaterThanOrEqual(2);
    expect(history.samples.map((s) => s.timestamp)).toContain(pushed.data.timestamp);
  });

  it('needs authentication', async () => {
    const t = await studio({});
    for (const p of ['/api/admin/telemetry', '/api/admin/telemetry/history', '/api/admin/system/status', '/api/admin/system/uptime']) {
      expect((await fetch(t.url + p)).status).toBe(401);
    }
  });
});

describe('GET /api/admin/system/status', () => {
  function appDir(): string {
    return writeFiles(tempDir('app-'), {
      'resources/version.json': JSON.stringify({
        app_version: '2.3.4',
        date: '2026-11-20 09:30',
        min_runtime: 2,
        runtime_version: 3,
        components: {
          runtime: { version: 3, date: '2026-11-01 00:00' },
          backend: { version: '2.3.4', date: '2026-11-20 09:30' },
          frontend: { version: '2.3.1', date: '2026-11-19 08:00' },
        },
      }),
    });
  }

  it('reports every field with its wire name, versions from version.json, the catalogs and the workflow index', async () => {
    const t = await studio({ STUDIO_APP_DIR: appDir(), REPO_URL: 'https://example.invalid/studio.git', CHATBOT_BOT_NAME: 'studio_bot' });
    const modelsDir = path.join(t.dir, 'models', 'checkpoints');
    fs.mkdirSync(modelsDir, { recursive: true });
    // The catalog's 6.94 GB as a sparse file (no disk used): a shorter file is incomplete, not present.
    fs.writeFileSync(path.join(modelsDir, 'sd_xl_base_1.0.safetensors'), 'x');
    fs.truncateSync(path.join(modelsDir, 'sd_xl_base_1.0.safetensors'), 6.94e9);
    const body = await json<SystemStatus>(t.api('/api/admin/system/status'));
    expect(body).toMatchObject({ app_version: '2.3.4', date: '2026-11-20 09:30', repo_url: 'https://example.invalid/studio.git', repo_url_source: 'environment', runtime_version: 3, min_runtime: 2 });
    const models = JSON.parse(fs.readFileSync(path.join(t.dir, 'catalogs', 'models.json'), 'utf8')) as { version: number; date: string; categories: Array<{ models: unknown[] }> };
    const index = JSON.parse(fs.readFileSync(path.join(t.dir, 'workflows', 'index.json'), 'utf8')) as { version: number; date: string; workflows: unknown[] };
    expect(Object.keys(body.components).sort()).toEqual(['backend', 'frontend', 'llm_models', 'loras', 'models', 'runtime', 'workflows']);
    expect(body.components.runtime).toEqual({ version: 3, date: '2026-11-01 00:00', status: 'ok', updatable: false });
    expect(body.components.backend).toEqual({ version: '2.3.4', date: '2026-11-20 09:30', status: 'ok' });
    expect(body.components.frontend).toMatchObject({ version: '2.3.1' });
    expect(body.components.models).toEqual({
      version: models.version,
      date: models.date,
      status: 'ok',
      count: models.categories.reduce((n, c) => n + c.models.length, 0),
      present: 1,
    });
    expect(body.components.workflows).toEqual({ version: index.version, date: index.date, status: 'ok', count: index.workflows.length });
    expect(body.components.loras).toMatchObject({ version: expect.any(Number), status: 'ok' });
    expect(body.components.llm_models).toMatchObject({ version: expect.any(Number), status: 'ok' });
    expect(body.comfyui).toEqual({ status: 'unreachable' });
    expect(body.nodes).toEqual({ total_packages: 0 });
    expect(body.disk.total_bytes).toBeGreaterThan(0);
    expect(body.disk.used_bytes + body.disk.free_bytes).toBeLessThanOrEqual(body.disk.total_bytes);
    expect(body.database.tables).toMatchObject({ jobs: 0, saved_prompts: 0, settings: expect.any(Number) });
    expect(body.database.tables.events).toBeGreaterThanOrEqual(1);
    expect(body.database.browser_url).toBeNull();
    expect(body.telegram_bot).toEqual({ running: false, name: 'studio_bot' });
  });

  it('marks components whose version source is missing, and shows the database URL in DEV_MODE', async () => {
    const t = await studio({ STUDIO_APP_DIR: tempDir('empty-app-'), DEV_MODE: '1' });
    const body = await json<SystemStatus>(t.api('/api/admin/system/status'));
    expect(body.components.backend).toEqual({ version: null, date: null, status: 'missing' });
    expect(body.components.runtime).toMatchObject({ status: 'missing', updatable: false });
    expect(body.database.browser_url).toBe(`file://${path.join(t.dir, 'db', 'studio.db')}`);
  });

  it('counts the engine node packages and says running once the engine is up', async () => {
    const t = await startTestStudio({ startEngine: true });
    cleanups.push(() => t.stop());
    await t.studio.engineReady();
    const body = await json<SystemStatus>(t.api('/api/admin/system/status'));
    expect(body.comfyui).toEqual({ status: 'running' });
    expect(body.nodes.total_packages).toBeGreaterThan(0);
  });
});

describe('GET /api/admin/system/uptime', () => {
  it('gives the start time in Rome time and the seconds since', async () => {
    const t = await studio({});
    const body = await json<{ started_at: string; uptime_seconds: number }>(t.api('/api/admin/system/uptime'));
    expect(body.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0[12]:00$/);
    expect(Math.abs(new Date(body.started_at).getTime() - t.studio.startedAt)).toBeLessThan(1000);
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
  });
});
