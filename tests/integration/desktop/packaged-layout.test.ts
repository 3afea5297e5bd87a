/**
 * The desktop app as it is installed, without Electron: the compiled server run under Node from a
 * folder laid out like the packaged app on Linux (resources/app = the archive's content,
 * app.asar.unpacked, extraResources; see tests/helpers/packaged-layout.ts), with
 * `process.resourcesPath` pointing there and native code loaded the way Electron loads it. It must
 * boot, seed the shipped workflows, start the stand-in from inside the layout, serve the built UI
 * and make a thumbnail through sharp (whose addon and libvips must come from app.asar.unpacked).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, electronShim, layOutPackagedApp, type PackagedLayout } from '../../helpers/packaged-layout.js';
import { freePort } from '../../helpers/ports.js';
import { commandLines } from '../../helpers/process-state.js';

const KEY = 'packaged-key-0123456789';
let tmp: string;
let layout: PackagedLayout;
let server: ChildProcess;
let url: string;
let output = '';

const api = (pathname: string, init: RequestInit = {}) => fetch(url + pathname, { ...init, headers: { 'X-API-Key': KEY, ...(init.headers as Record<string, string>) } });

async function until<T>(what: string, probe: () => Promise<T | null | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the packaged server exited (${server.exitCode}) while waiting for ${what}:\n${output}`);
    const value = await probe().catch(() => null);
    if (value !== null && value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not seen in ${ms} ms\n${output}\n${engineLog()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function engineLog(): string {
  try {
    return fs.readFileSync(path.join(tmp, 'data', 'logs', 'engine.log'), 'utf8').slice(-3000);
  } catch {
    return '(no engine log)';
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-packaged-'));
  const stage = path.join(tmp, 'stage');
  buildApp(stage);
  layout = layOutPackagedApp(stage, path.join(tmp, 'install'));
  const shim = electronShim(layout, path.join(tmp, 'electron-shim.mjs'));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  server = spawn(process.execPath, ['--import', shim, path.join(layout.app, 'dist', 'server', 'main.js')], {
    // Not the checkout: nothing may be found through the working directory.
    cwd: home,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      STUDIO_DIR: path.join(tmp, 'data'),
      STUDIO_PORT: String(port),
      STUDIO_HOST: '127.0.0.1',
      API_KEY: KEY,
      // Automatic mode, as the installed app starts: nothing answers there, so the stand-in runs.
      ENGINE_PORT: String(await freePort()),
      STANDIN_STEP_MS: '10',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  server.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  await until('the health route', async () => ((await fetch(`${url}/api/health`)).ok ? true : null), 60_000);
}, 300_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server.once('exit', r));
    process.kill(-server.pid!, 'SIGTERM');
    await exited;
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe('the packaged layout, run by Node as Electron would run it', () => {
  it('unpacks the native modules from the archive', () => {
    const unpacked = layout.unpackedFiles;
    expect(unpacked.some((f) => /^node_modules\/better-sqlite3\/.*\.node$/.test(f))).toBe(true);
    expect(unpacked.some((f) => /^node_modules\/@img\/sharp-[^/]+\/.*\.node$/.test(f))).toBe(true);
    expect(unpacked.some((f) => /^node_modules\/@img\/sharp-libvips-[^/]+\/lib\/libvips/.test(f))).toBe(true);
    // The archive holds the code, the UI and package.json; the shipped data lives beside it.
    for (const rel of ['package.json', 'dist/server/main.js', 'dist/server/standin/main.js', 'renderer/dist/index.html']) expect(fs.existsSync(path.join(layout.app, rel)), rel).toBe(true);
    expect(fs.existsSync(path.join(layout.app, 'workflows'))).toBe(false);
    // The desktop runs tsc's modules: the one-file server of `npm start` is built but not shipped.
    for (const file of ['main.bundle.cjs', 'start.cjs']) {
      expect(fs.existsSync(path.join(tmp, 'stage', 'dist', 'server', file)), file).toBe(true);
      expect(fs.existsSync(path.join(layout.app, 'dist', 'server', file)), file).toBe(false);
    }
    expect(fs.existsSync(path.join(layout.resources, 'workflows', 'index.json'))).toBe(true);
    expect(fs.existsSync(path.join(layout.resources, 'resources', 'standin'))).toBe(true);
  });

  it('boots and seeds the shipped workflows into the data directory', async () => {
    const health = (await (await fetch(`${url}/api/health`)).json()) as { status: string; version: string };
    const pkg = JSON.parse(fs.readFileSync(path.join(layout.app, 'package.json'), 'utf8')) as { version: string };
    expect(health).toMatchObject({ status: 'ok', version: pkg.version });
    const shipped = fs.readdirSync(path.join(layout.resources, 'workflows'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(shipped.length).toBeGreaterThan(0);
    const seeded = fs.readdirSync(path.join(tmp, 'data', 'workflows'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(seeded).toEqual(shipped);
    const listed = (await (await api('/api/admin/workflows')).json()) as unknown;
    expect(JSON.stringify(listed)).toContain(shipped[0]);
  });

  it('starts the stand-in engine from inside the layout', async () => {
    await until('the engine running', async () => {
      const health = (await (await fetch(`${url}/api/health`)).json()) as { engine: string };
      return health.engine === 'running' ? true : null;
    }, 90_000);
    const standin = path.join(layout.app, 'dist', 'server', 'standin', 'main.js');
    expect(commandLines().filter((line) => line.includes(standin))).toHaveLength(1);
  }, 120_000);

  it('serves the built UI', async () => {
    const page = await api('/home');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toBe(fs.readFileSync(path.join(layout.app, 'renderer', 'dist', 'index.html'), 'utf8'));
    const script = /<script[^>]+src="(\/static\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await api(script!);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it('makes a thumbnail through sharp, loaded from app.asar.unpacked', async () => {
    const form = new FormData();
    form.append('files', new Blob([fs.readFileSync(path.join(layout.resources, 'resources', 'standin', 'image.png'))]), 'shipped.png');
    const upload = await api('/api/admin/assets/upload-inputs', { method: 'POST', body: form });
    expect(upload.status).toBe(200);
    const thumb = await api('/api/admin/assets/thumbnail?type=inputs&path=shipped.png');
    expect(thumb.status, await thumb.clone().text()).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await thumb.arrayBuffer());
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    // The server process mapped sharp's addon and libvips from the unpacked folder.
    const maps = fs.readFileSync(`/proc/${server.pid}/maps`, 'utf8');
    expect(maps).toContain(path.join(layout.unpacked, 'node_modules', '@img'));
    expect(maps).toMatch(/app\.asar\.unpacked\/node_modules\/@img\/sharp-libvips-[^/]+\/lib\/libvips/);
  });
});
