/**
 * The installed app's updates with the real electron-updater against a real local feed: an HTTP
 * server with `latest-linux.yml` and an AppImage whose SHA-512 it states. Electron is the fake of
 * tests/helpers/fake-electron.ts (its `net` answered by Node's http). Check, download with
 * progress, the checksum refused when it does not match, off until a feed is set, and the install
 * that runs when the app quits.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { app, fakeElectronForRequire } from '../../helpers/fake-electron.js';
import type { DesktopUpdateStatus } from '../../../server/contracts/system.contract.js';

vi.mock('electron', async () => (await import('../../helpers/fake-electron.js')).electronModule);

const { DesktopUpdater } = await import('../../../main/desktop-updater.js');
const { startStudio } = await import('../../../main/studio-handle.js');
const { silentLogger } = await import('../../../server/logging.js');
const { freePort } = await import('../../helpers/ports.js');
type AppUpdaterLike = import('../../../main/desktop-updater.js').AppUpdaterLike;

let tmp: string;
let feed: http.Server;
let feedUrl: string;
let requests: string[] = [];
let undoRequire: () => void;
/** What the feed serves: the artifact, and the SHA-512 its metadata claims. */
let artifact: Buffer;
let claimedSha512: string;
const log = { info: () => {}, error: () => {} };
const savedEnv = { APPIMAGE: process.env.APPIMAGE, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };

/** A new AppImage updater per test (electron-updater's `autoUpdater` is one per process). */
const loadUpdater = (): AppUpdaterLike => {
  const { AppImageUpdater } = createRequire(import.meta.url)('electron-updater') as { AppImageUpdater: new () => AppUpdaterLike };
  return new AppImageUpdater();
};

function latestYml(version: string, file: string, sha512: string, size: number): string {
  return [`version: ${version}`, 'files:', `  - url: ${file}`, `    sha512: ${sha512}`, `    size: ${size}`, `path: ${file}`, `sha512: ${sha512}`, "releaseDate: '2026-11-20T10:00:00.000Z'", ''].join('\n');
}

beforeAll(async () => {
  undoRequire = fakeElectronForRequire();
  feed = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url?.startsWith('/feed/latest-linux.yml')) {
      res.setHeader('Content-Type', 'text/yaml');
      res.end(latestYml('0.2.0', 'Studio-0.2.0.AppImage', claimedSha512, artifact.length));
    } else if (req.url === '/feed/Studio-0.2.0.AppImage') {
      res.setHeader('Content-Length', String(artifact.length));
      res.end(artifact);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed`;
});

afterAll(async () => {
  undoRequire();
  await new Promise((resolve) => feed.close(resolve));
});

beforeEach(() => {
  app.reset();
  app.ready();
  app.version = '0.1.0';
  app.isPackaged = true;
  requests = [];
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-updater-'));
  // The running AppImage, and what electron-builder writes beside the archive (the cache folder's name).
  const resources = path.join(tmp, 'resources');
  fs.mkdirSync(resources);
  fs.writeFileSync(path.join(resources, 'app-update.yml'), 'provider: generic\nurl: https://updates.invalid/studio\nupdaterCacheDirName: studio-updater\n');
  Object.defineProperty(process, 'resourcesPath', { value: resources, configurable: true });
  process.env.APPIMAGE = path.join(tmp, 'Studio-0.1.0.AppImage');
  fs.writeFileSync(process.env.APPIMAGE, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  process.env.XDG_CACHE_HOME = path.join(tmp, 'cache');
  // The new version is a script (it runs when installed): it leaves a mark, then pads to 256 KiB.
  const script = `#!/bin/sh\necho "installed 0.2.0" > "${path.join(tmp, 'installed.txt')}"\nexit 0\n`;
  artifact = Buffer.concat([Buffer.from(script), Buffer.from(`#${'x'.repeat(256 * 1024)}\n`)]);
  claimedSha512 = crypto.createHash('sha512').update(artifact).digest('base64');
});

afterEach(() => {
  process.env.APPIMAGE = savedEnv.APPIMAGE;
  process.env.XDG_CACHE_HOME = savedEnv.XDG_CACHE_HOME;
  if (savedEnv.APPIMAGE === undefined) delete process.env.APPIMAGE;
  if (savedEnv.XDG_CACHE_HOME === undefined) delete process.env.XDG_CACHE_HOME;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the desktop updater against a local feed', () => {
  it('finds the newer version, downloads it with progress and checks its SHA-512', async () => {
    const updater = new DesktopUpdater({ feedUrl, currentVersion: '0.1.0', packaged: true, load: loadUpdater, log });
    const seen: DesktopUpdateStatus[] = [];
    updater.onChange((s) => seen.push(s));
    expect(updater.status()).toMatchObject({ status: 'idle', reason: null, feed_url: feedUrl });

    const checked = await updater.check();
    expect(checked).toMatchObject({ status: 'available', version: '0.2.0', current_version: '0.1.0', error: null });
    expect(checked.checked_at).not.toBeNull();
    expect(requests.some((r) => r.startsWith('/feed/latest-linux.yml'))).toBe(true);
    // A check never downloads by itself.
    expect(requests).not.toContain('/feed/Studio-0.2.0.AppImage');

    const done = await updater.download();
    expect(done).toMatchObject({ status: 'downloaded', version: '0.2.0', progress: null, error: null });
    expect(requests).toContain('/feed/Studio-0.2.0.AppImage');
    const progress = seen.filter((s) => s.status === 'downloading' && s.progress && s.progress.total > 0).map((s) => s.progress!);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ percent: 100, transferred: artifact.length, total: artifact.length });
    const pending = path.join(tmp, 'cache', 'studio-updater', 'pending', 'Studio-0.2.0.AppImage');
    expect(fs.readFileSync(pending)).toEqual(artifact);
  });

  it('installs the downloaded version when the app quits', async () => {
    const updater = new DesktopUpdater({ feedUrl, currentVersion: '0.1.0', packaged: true, load: loadUpdater, log });
    await updater.check();
    updater.finishOnExit();
    expect(fs.existsSync(path.join(tmp, 'Studio-0.1.0.AppImage'))).toBe(true);
    expect((await updater.download()).status).toBe('downloaded');
    expect(fs.existsSync(path.join(tmp, 'installed.txt'))).toBe(false);
    // The shell's last step once Studio has stopped (desktop-app.ts, before app.exit).
    updater.finishOnExit();
    // The AppImage updater replaced the running file with the new version and ran it once to finish.
    expect(fs.readFileSync(path.join(tmp, 'Studio-0.2.0.AppImage'))).toEqual(artifact);
    expect(fs.existsSync(path.join(tmp, 'Studio-0.1.0.AppImage'))).toBe(false);
    expect(fs.readFileSync(path.join(tmp, 'installed.txt'), 'utf8')).toBe('installed 0.2.0\n');
  });

  it('refuses a download whose SHA-512 does not match the feed', async () => {
    claimedSha512 = crypto.createHash('sha512').update('something else').digest('base64');
    const updater = new DesktopUpdater({ feedUrl, currentVersion: '0.1.0', packaged: true, load: loadUpdater, log });
    await updater.check();
    const failed = await updater.download();
    expect(failed.status).toBe('error');
    expect(failed.error).toMatch(/sha512 checksum mismatch/i);
    expect(fs.existsSync(path.join(tmp, 'cache', 'studio-updater', 'pending', 'Studio-0.2.0.AppImage'))).toBe(false);
  });

  it('says when the feed has nothing newer', async () => {
    app.version = '0.2.0';
    const updater = new DesktopUpdater({ feedUrl, currentVersion: '0.2.0', packaged: true, load: loadUpdater, log });
    expect(await updater.check()).toMatchObject({ status: 'not-available', version: null });
    expect(await updater.download()).toMatchObject({ status: 'not-available' });
    expect(requests).not.toContain('/feed/Studio-0.2.0.AppImage');
  });

  it('is off until a feed is set, and off when not packaged: nothing is loaded or asked', async () => {
    const load = vi.fn(loadUpdater);
    const unset = new DesktopUpdater({ feedUrl: null, currentVersion: '0.1.0', packaged: true, load, log });
    expect(await unset.check()).toMatchObject({ status: 'off', reason: expect.stringContaining('DESKTOP_UPDATE_URL') });
    const fromSource = new DesktopUpdater({ feedUrl, currentVersion: '0.1.0', packaged: false, load, log });
    expect(await fromSource.check()).toMatchObject({ status: 'off', reason: expect.stringContaining('packaged') });
    expect(await fromSource.download()).toMatchObject({ status: 'off' });
    expect(load).not.toHaveBeenCalled();
    expect(requests).toEqual([]);
  });

  it('reports an unreachable feed as an error', async () => {
    const updater = new DesktopUpdater({ feedUrl: `${feedUrl}/missing`, currentVersion: '0.1.0', packaged: true, load: loadUpdater, log });
    const failed = await updater.check();
    expect(failed.status).toBe('error');
    expect(failed.error).toMatch(/404|Cannot find/);
  });
});

describe('System: which updater applies', () => {
  const KEY = 'updates-key-0123456789';
  const env = async (dir: string) => ({ STUDIO_DIR: dir, STUDIO_PORT: '0', STUDIO_HOST: '127.0.0.1', API_KEY: KEY, ENGINE_MODE: 'standin', ENGINE_PORT: String(await freePort()), DESKTOP_UPDATE_URL: feedUrl });
  const call = (url: string, method = 'GET') => fetch(url, { method, headers: { 'X-API-Key': KEY } });

  it('the desktop app: its updater, checked and downloaded through the API', async () => {
    const handle = await startStudio({
      env: await env(path.join(tmp, 'data')),
      logger: silentLogger,
      configOptions: { probeEngine: async () => false },
      desktopUpdater: (config) => new DesktopUpdater({ feedUrl: config.urls.desktopUpdates, currentVersion: '0.1.0', packaged: true, load: loadUpdater, log }),
    });
    try {
      const base = `${handle.url}/api/admin/system/app-update`;
      expect(await (await call(base)).json()).toMatchObject({ channel: 'desktop', desktop: { status: 'idle', feed_url: feedUrl }, git: { repo_configured: false } });
      expect(await (await call(`${base}/check`, 'POST')).json()).toMatchObject({ status: 'available', version: '0.2.0' });
      expect(await (await call(`${base}/download`, 'POST')).json()).toMatchObject({ status: 'downloading' });
      let info = (await (await call(base)).json()) as { desktop: { status: string } };
      for (let i = 0; i < 600 && info.desktop.status === 'downloading'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        info = (await (await call(base)).json()) as { desktop: { status: string } };
      }
      expect(info.desktop).toMatchObject({ status: 'downloaded', version: '0.2.0' });
    } finally {
      await handle.stop();
    }
  }, 60_000);

  it('a headless install: git, and the desktop routes answer 409', async () => {
    const handle = await startStudio({ env: await env(path.join(tmp, 'data')), logger: silentLogger, configOptions: { probeEngine: async () => false } });
    try {
      const base = `${handle.url}/api/admin/system/app-update`;
      expect(await (await call(base)).json()).toEqual({ channel: 'git', desktop: null, git: { repo_configured: false } });
      for (const action of ['check', 'download', 'install']) {
        const res = await call(`${base}/${action}`, 'POST');
        expect(res.status).toBe(409);
        expect(((await res.json()) as { detail: string }).detail).toMatch(/updates its backend from git/);
      }
    } finally {
      await handle.stop();
    }
  }, 60_000);
});
