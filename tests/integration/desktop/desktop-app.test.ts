/**
 * The desktop shell with Electron mocked (its binary cannot run here) around a REAL Studio
 * server: boot order, single instance, hide-on-close, the tray, the cookie hand-off and quit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { app, calls, electronModule, FakeBrowserWindow, FakeTray } from '../../helpers/fake-electron.js';
import { freePort } from '../../helpers/ports.js';

vi.mock('electron', async () => (await import('../../helpers/fake-electron.js')).electronModule);

const { DesktopApp } = await import('../../../main/desktop-app.js');
const { startStudio } = await import('../../../main/studio-handle.js');
const { silentLogger } = await import('../../../server/logging.js');

let dir: string;
let env: Record<string, string>;
const log = { info: () => {}, error: () => {} };

beforeEach(async () => {
  app.reset();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-desktop-'));
  env = {
    STUDIO_DIR: dir,
    STUDIO_PORT: '0',
    STUDIO_HOST: '127.0.0.1',
    API_KEY: 'desktop-key-0123456789',
    ENGINE_MODE: 'standin',
    ENGINE_PORT: String(await freePort()),
    STANDIN_STEP_MS: '10',
  };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function desktop(start = () => startStudio({ env, logger: silentLogger })) {
  const started: Array<Awaited<ReturnType<typeof startStudio>>> = [];
  const d = new DesktopApp({
    start: async () => {
      calls.push('server');
      const handle = await start();
      started.push(handle);
      return handle;
    },
    version: '0.0.0-test',
    iconDir: '/icons',
    preloadPath: '/preload.cjs',
    logFile: () => path.join(dir, 'logs', 'main.log'),
    log,
  });
  return { d, started };
}

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function quit(): Promise<void> {
  app.quit();
  await until(() => app.exitCode !== null);
}

describe('the desktop shell', () => {
  it('boots in order: lock → server → tray → signed-in window', async () => {
    const { d, started } = desktop();
    expect(d.run()).toBe(true);
    app.ready();
    await until(() => calls.includes('load'));
    expect(calls.slice(0, 6)).toEqual(['lock', 'server', 'tray', 'window', 'cookie', 'load']);
    const win = FakeBrowserWindow.all[0]!;
    expect(win.url).toBe(started[0]!.url);
    expect(win.visible).toBe(true);
    // The window's session got the server's own session cookie: the local user is not asked for the key.
    const cookie = win.webContents.cookies[0] as { name: string; value: string; httpOnly: boolean; sameSite: string; expirationDate: number };
    expect(cookie).toMatchObject({ name: 'session', httpOnly: true, sameSite: 'strict' });
    expect(cookie.expirationDate).toBeGreaterThan(Date.now() / 1000 + 86_000);
    const res = await fetch(`${started[0]!.url}/api/admin/events`, { headers: { Cookie: `session=${cookie.value}` } });
    expect(res.status).toBe(200);
    // A local flood of wrong keys throttles the login route, never the owner's window.
    for (let i = 0; i < 12; i++) {
      await fetch(`${started[0]!.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"api_key":"guess"}' });
    }
    const throttled = await fetch(`${started[0]!.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"api_key":"guess"}' });
    expect(throttled.status).toBe(429);
    expect((await fetch(`${started[0]!.url}/api/admin/events`, { headers: { Cookie: `session=${cookie.value}` } })).status).toBe(200);
    // Permissions Studio does not use are denied.
    const ask = (permission: string) =>
      new Promise<boolean>((resolve) => electronModule.session.defaultSession.permissionRequest!(null, permission, resolve));
    expect(await ask('media')).toBe(false);
    expect(await ask('geolocation')).toBe(false);
    expect(await ask('notifications')).toBe(true);
    await quit();
  }, 60_000);

  it('hands a second launch to the running instance', async () => {
    const { d } = desktop();
    d.run();
    app.ready();
    await until(() => calls.includes('load'));
    const win = FakeBrowserWindow.all[0]!;
    win.hide();
    app.emit('second-instance');
    expect(win.visible).toBe(true);
    expect(win.focus).toHaveBeenCalled();
    await quit();

    app.reset();
    app.lock = false;
    const second = desktop();
    expect(second.d.run()).toBe(false);
    expect(calls).toEqual(['lock', 'quit']);
  }, 60_000);

  it('hides the window on close and keeps the server running; quit stops the server and the engine', async () => {
    const { d, started } = desktop();
    d.run();
    app.ready();
    await until(() => calls.includes('load'));
    const handle = started[0]!;
    await handle.studio.engineReady(30_000);
    const win = FakeBrowserWindow.all[0]!;
    expect(win.userClose()).toBe(true);
    expect(win.visible).toBe(false);
    expect((await fetch(`${handle.url}/api/health`)).status).toBe(200);
    const enginePort = handle.config.engine.port;
    expect((await fetch(`http://127.0.0.1:${enginePort}/system_stats`)).status).toBe(200);

    const tray = FakeTray.all[0]!;
    tray.menu.find((item) => item.label === 'Quit Studio')!.click!();
    await until(() => app.exitCode !== null);
    expect(app.exitCode).toBe(0);
    expect(calls.indexOf('quit')).toBeLessThan(calls.indexOf('exit:0'));
    await expect(fetch(`${handle.url}/api/health`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${enginePort}/system_stats`)).rejects.toThrow();
    // After quit has begun, closing is no longer prevented.
    expect(win.userClose()).toBe(false);
  }, 60_000);

  it('rebuilds the tray from state: engine running, LAN item only with LAN access', async () => {
    const { d, started } = desktop();
    d.run();
    app.ready();
    await until(() => calls.includes('load'));
    await started[0]!.studio.engineReady(30_000);
    await until(() => FakeTray.all[0]!.menu.some((i) => i.label === 'Engine (standin): running'));
    const tray = FakeTray.all[0]!;
    expect(tray.image).toEqual({ file: '/icons/tray-running.png' });
    expect(tray.tooltip).toBe('Studio — engine running');
    // STUDIO_HOST=127.0.0.1: no LAN address to copy.
    expect(tray.menu.some((i) => i.label?.startsWith('Copy LAN address'))).toBe(false);
    expect(tray.menu.find((i) => i.label === 'Restart engine')!.enabled).toBe(true);
    await quit();
  }, 60_000);

  it('restarts the backend from the tray and signs the window in again', async () => {
    const { d, started } = desktop();
    d.run();
    app.ready();
    await until(() => calls.includes('load'));
    FakeTray.all[0]!.menu.find((i) => i.label === 'Restart backend')!.click!();
    await until(() => started.length === 2 && calls.filter((c) => c === 'load').length === 2);
    expect(FakeBrowserWindow.all).toHaveLength(1);
    await expect(fetch(`${started[0]!.url}/api/health`)).rejects.toThrow();
    expect((await fetch(`${started[1]!.url}/api/health`)).status).toBe(200);
    await quit();
  }, 60_000);

  it('shows a clear dialog with the log path instead of a blank window when startup fails', async () => {
    const blocker = await startStudio({ env, logger: silentLogger });
    const { d } = desktop(() => startStudio({ env: { ...env, STUDIO_PORT: String(blocker.studio.port) }, logger: silentLogger }));
    d.run();
    app.ready();
    await until(() => app.exitCode !== null);
    expect(app.exitCode).toBe(1);
    const dialog = calls.find((c) => c.startsWith('dialog:'))!;
    expect(dialog).toContain('Studio could not start');
    expect(dialog).toContain('already in use');
    expect(dialog).toContain(path.join(dir, 'logs', 'main.log'));
    expect(FakeBrowserWindow.all).toHaveLength(0);
    expect(electronModule.dialog.showErrorBox).toHaveBeenCalled();
    await blocker.stop();
  }, 60_000);
});
