/**
 * The one-file server bundle `npm start` runs (scripts/bundle-server.mjs), built from tsc's output
 * into a staged app folder and run by Node from there through its entry `start.cjs`
 * (scripts/server-entry.cjs). Bundled, every module's `import.meta.url` is the bundle's, so
 * what used to be found beside a module must be found another way: the stand-in engine (its own
 * process) and the download worker (its own thread) must start from the bundle, and a download
 * through the queue must arrive verified. Libraries loaded on first use stay in node_modules and
 * must still load from the bundle.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { catalogOf, repoEntry, sha256, waitFor, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { freePort } from '../../helpers/ports.js';
import { commandLines } from '../../helpers/process-state.js';

const KEY = 'bundle-key-0123456789';
let tmp: string;
let app: string;
let data: string;
let origin: FakeFileServer;
let url: string;
let output = '';
/** What the first start printed (no DEBUG). */
let firstOutput = '';
const content = randomBytes(300 * 1024 + 7);

const api = (pathname: string, init: RequestInit = {}) => fetch(url + pathname, { ...init, headers: { 'X-API-Key': KEY, ...(init.headers as Record<string, string>) } });

function run(label: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: APP_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bundle-'));
  // The app folder as a checkout has it after `npm run build:server`; the rest is the checkout's.
  app = path.join(tmp, 'app');
  run('tsc', path.join(APP_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json', '--outDir', path.join(app, 'dist')]);
  run('bundle', process.execPath, [path.join(APP_ROOT, 'scripts', 'bundle-server.mjs'), path.join(app, 'dist')]);
  fs.copyFileSync(path.join(APP_ROOT, 'package.json'), path.join(app, 'package.json'));
  for (const link of ['node_modules', 'workflows', 'resources']) fs.symlinkSync(path.join(APP_ROOT, link), path.join(app, link));

  origin = await startFakeFileServer({ content });
  data = path.join(tmp, 'data');
  writeCatalogs(data, { models: catalogOf([repoEntry('bundled.safetensors', { sha256: sha256(content) })]) });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  await startBundled(port);
  firstOutput = output;
}, 400_000);

/** Every bundled server started, so that afterAll stops them whatever a test left running. */
const started: ChildProcess[] = [];

/** Start `start.cjs` of the staged app on `port`; resolves once `/api/health` answers. */
async function startBundled(port: number, extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  output = '';
  const child = spawn(process.execPath, [path.join(app, 'dist', 'server', 'start.cjs')], {
    cwd: tmp,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: tmp,
      STUDIO_DIR: data,
      STUDIO_PORT: String(port),
      STUDIO_HOST: '127.0.0.1',
      API_KEY: KEY,
      ENGINE_MODE: 'standin',
      ENGINE_PORT: String(await freePort()),
      REPOHOST_BASE_URL: origin.url,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(child);
  child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the bundled server exited (${child.exitCode}):\n${output}`);
    return (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.ok;
  }, 'the health route', 120_000);
  return child;
}

async function stopBundled(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}

/**
 * Each library the bundle loads on first use answers through Studio at `base`: the YAML parser (a
 * workflow's inputs come from its manifest.yaml) and multer (an image upload).
 */
async function expectFirstUseLibraries(base: string): Promise<void> {
  const call = (pathname: string, init: RequestInit = {}) => fetch(base + pathname, { ...init, headers: { 'X-API-Key': KEY } });
  // The upload goes on to the engine.
  await waitFor(async () => ((await (await call('/api/health')).json()) as { engine: string }).engine === 'running', 'the engine running', 90_000);
  const login = (body: string | Uint8Array, charset = 'utf-8') => fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': `application/json; charset=${charset}` }, body });
  // A body that is not JSON: body-parser reports it through http-errors.
  const broken = await login('{"api_key": ');
  expect(broken.status).toBe(400);
  expect(((await broken.json()) as { detail: string }).detail).toBeTruthy();
  // A JSON body in another charset: body-parser decodes it through iconv-lite.
  const missing = await login(JSON.stringify({}));
  expect(missing.status).toBe(400);
  expect(((await missing.json()) as { detail: string }).detail).toMatch(/api_key/);
  const signedIn = await login(new Uint8Array(Buffer.from(JSON.stringify({ api_key: KEY }), 'utf16le')), 'utf-16le');
  expect(signedIn.status, await signedIn.clone().text()).toBe(200);
  const listed = await call('/api/admin/workflows');
  // Express asks mime-types for the charset.
  expect(listed.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const workflows = (await listed.json()) as { workflows: { id: string; inputs?: unknown[] }[] };
  expect(workflows.workflows.find((w) => w.id === 'image-filter')?.inputs?.length).toBeGreaterThan(0);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(fs.readFileSync(path.join(APP_ROOT, 'resources', 'standin', 'image.png')))], { type: 'image/png' }), 'bundle.png');
  const upload = await call('/api/run/upload-image', { method: 'POST', body: form });
  expect(upload.status, await upload.clone().text()).toBe(200);
  fs.mkdirSync(path.join(data, 'outputs'), { recursive: true });
  fs.writeFileSync(path.join(data, 'outputs', 'bundled.txt'), 'zipped from the bundle');
  const zip = await call('/api/admin/outputs-zip');
  expect(zip.status).toBe(200);
  expect(zip.headers.get('content-type')).toBe('application/zip');
  expect(Buffer.from(await zip.arrayBuffer()).subarray(0, 2).toString('latin1')).toBe('PK');
}

afterAll(async () => {
  await Promise.all(started.map(stopBundled));
  await origin?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe('the one-file server bundle', () => {
  it('is one file with the start\'s libraries in it and native or first-use ones left out', () => {
    const bundle = fs.readFileSync(path.join(app, 'dist', 'server', 'main.bundle.cjs'), 'utf8');
    expect(bundle).not.toMatch(/require\("express"\)|require\("zod"\)/);
    expect(bundle).toMatch(/require\("better-sqlite3"\)/);
    expect(bundle).toMatch(/import\("yaml"\)/);
    expect(bundle).not.toMatch(/require\("\.\.?\//);
    expect(bundle).toMatch(/\/\/# sourceMappingURL=main\.bundle\.cjs\.map\s*$/);
  });

  it('loads the libraries kept for first use from node_modules (YAML, the upload parser, the ES-module-only ZIP writer)', async () => {
    await expectFirstUseLibraries(url);
  });

  it('starts the compiled stand-in engine of the app', async () => {
    await waitFor(async () => {
      const health = (await (await fetch(`${url}/api/health`)).json()) as { engine: string };
      return health.engine === 'running';
    }, 'the engine running', 90_000);
    const standin = path.join(app, 'dist', 'server', 'standin', 'main.js');
    expect(commandLines().filter((line) => line.includes(standin))).toHaveLength(1);
  }, 120_000);

  it('downloads through the queue on the worker thread and verifies the file', async () => {
    const res = await api('/api/admin/models/download/bundled.safetensors', { method: 'POST' });
    expect(res.status).toBe(200);
    const final = path.join(data, 'models', 'checkpoints', 'bundled.safetensors');
    await waitFor(() => fs.existsSync(final), `the download to arrive:\n${output}`, 60_000);
    expect(sha256(fs.readFileSync(final))).toBe(sha256(content));
  }, 90_000);

  it('starts again from the same build and serves the first-use libraries again', async () => {
    const port = await freePort();
    const again = await startBundled(port);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    await expectFirstUseLibraries(`http://127.0.0.1:${port}`);
    await stopBundled(again);
  }, 120_000);

  it("prints Express's debug lines under DEBUG only", async () => {
    expect(firstOutput).not.toContain('express:application');
    const port = await freePort();
    const debugging = await startBundled(port, { DEBUG: 'express:application' });
    expect(output).toMatch(/express:application set "x-powered-by"/);
    await stopBundled(debugging);
  }, 120_000);
});
