/**
 * A stand-in for the `electron` module in unit tests of the main process (Electron's binary
 * cannot run here). It records what main does: windows, tray menus, cookies, quits.
 */
import { EventEmitter } from 'node:events';
import http from 'node:http';
import { createRequire } from 'node:module';
import { vi } from 'vitest';

export const calls: string[] = [];

class FakeApp extends EventEmitter {
  lock = true;
  ready: () => void = () => {};
  readyPromise = new Promise<void>((resolve) => (this.ready = resolve));
  exitCode: number | null = null;
  requestSingleInstanceLock = vi.fn(() => {
    calls.push('lock');
    return this.lock;
  });
  whenReady = vi.fn(() => this.readyPromise);
  quit = vi.fn(() => {
    calls.push('quit');
    const event = { defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } };
    this.emit('before-quit', event);
  });
  exit = vi.fn((code: number) => {
    calls.push(`exit:${code}`);
    this.exitCode = code;
  });
  version = '0.0.0-test';
  getVersion = () => this.version;
  getName = () => 'Studio';
  isPackaged = false;
  /** `app.getPath(name)`: tests set the folders they need. */
  paths: Record<string, string> = {};
  getPath = (name: string) => this.paths[name] ?? `/fake-electron/${name}`;
  getAppPath = () => '/fake-electron/app';
  relaunch = vi.fn(() => calls.push('relaunch'));

  /** Forget listeners and state between tests. */
  reset(): void {
    this.removeAllListeners();
    this.lock = true;
    this.exitCode = null;
    this.version = '0.0.0-test';
    this.isPackaged = false;
    this.paths = {};
    this.readyPromise = new Promise<void>((resolve) => (this.ready = resolve));
    calls.length = 0;
    FakeBrowserWindow.all.length = 0;
    FakeTray.all.length = 0;
  }
}

export class FakeWebContents extends EventEmitter {
  cookies: unknown[] = [];
  session = { cookies: { set: vi.fn(async (c: unknown) => { calls.push('cookie'); this.cookies.push(c); }) } };
  setWindowOpenHandler = vi.fn();
}

export class FakeBrowserWindow extends EventEmitter {
  static all: FakeBrowserWindow[] = [];
  visible = false;
  url: string | null = null;
  maximized = false;
  webContents = new FakeWebContents();
  constructor(readonly options: unknown) {
    super();
    calls.push('window');
    FakeBrowserWindow.all.push(this);
  }
  loadURL = vi.fn(async (url: string) => {
    calls.push('load');
    this.url = url;
  });
  show = vi.fn(() => (this.visible = true));
  hide = vi.fn(() => (this.visible = false));
  focus = vi.fn();
  restore = vi.fn();
  isMinimized = () => false;
  isMaximized = () => this.maximized;
  maximize = () => (this.maximized = true);
  unmaximize = () => (this.maximized = false);
  minimize = vi.fn();
  /** Simulate the user closing the window; returns whether main prevented it. */
  userClose(): boolean {
    const event = { prevented: false, preventDefault() { this.prevented = true; } };
    this.emit('close', event);
    return event.prevented;
  }
}

export class FakeTray extends EventEmitter {
  static all: FakeTray[] = [];
  menu: Array<{ label?: string; enabled?: boolean; click?: () => void; type?: string }> = [];
  image: unknown = null;
  tooltip = '';
  destroyed = false;
  constructor(image: unknown) {
    super();
    calls.push('tray');
    this.image = image;
    FakeTray.all.push(this);
  }
  setContextMenu = (menu: FakeTray['menu']) => (this.menu = menu);
  setImage = (image: unknown) => (this.image = image);
  setToolTip = (text: string) => (this.tooltip = text);
  destroy = () => (this.destroyed = true);
}

export const app = new FakeApp();
export const electronModule = {
  app,
  BrowserWindow: FakeBrowserWindow,
  Tray: FakeTray,
  Menu: { buildFromTemplate: (template: unknown) => template },
  nativeImage: { createFromPath: (file: string) => ({ file }) },
  dialog: { showErrorBox: vi.fn((title: string, message: string) => calls.push(`dialog:${title}:${message}`)) },
  shell: { openExternal: vi.fn(async () => {}), showItemInFolder: vi.fn() },
  clipboard: { writeText: vi.fn() },
  session: {
    defaultSession: {
      permissionRequest: null as null | ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void),
      setPermissionRequestHandler: vi.fn(function (this: { permissionRequest: unknown }, handler: unknown) {
        electronModule.session.defaultSession.permissionRequest = handler as typeof electronModule.session.defaultSession.permissionRequest;
      }),
      setPermissionCheckHandler: vi.fn(),
    },
  },
  ipcMain: { handle: vi.fn() },
  // electron-updater's HTTP goes through Electron's `net`; Node's http answers the same events.
  net: { request: (options: http.RequestOptions) => http.request(options) },
  autoUpdater: new EventEmitter(),
};
Object.assign(electronModule.session, { fromPartition: () => ({}) });

/**
 * `vi.mock('electron')` reaches ES modules only: a CommonJS dependency (electron-updater) calls
 * `require('electron')` itself. Route that to this fake too; returns the undo.
 */
export function fakeElectronForRequire(): () => void {
  const Module = createRequire(import.meta.url)('node:module') as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = Module._load;
  Module._load = function (request: string, ...rest: unknown[]) {
    return request === 'electron' ? electronModule : load.call(this, request, ...rest);
  };
  return () => {
    Module._load = load;
  };
}
