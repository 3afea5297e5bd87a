/**
 * The desktop shell: single instance, the Studio server in-process, a window signed in through
 * the server's own login, a tray that controls it all, and a quit that stops the server and its
 * children before the app exits. Closing the window only hides it: LAN users keep working.
 */
import { app, BrowserWindow, clipboard, dialog, Menu, nativeImage, session, shell, Tray, type Event as ElectronEvent } from 'electron';
import path from 'node:path';
import { isWebUrl, registerIpc } from './ipc.js';
import { sessionCookieDetails } from './session-handoff.js';
import type { StudioHandle } from './studio-handle.js';
import type { DesktopUpdater } from './desktop-updater.js';
import { describeStartupError } from './fatal-error.js';
import { buildTrayMenu, trayIconState, trayTooltip, type TrayActions, type TrayState } from './tray-menu.js';

export interface DesktopOptions {
  /** Starts the server (the same path as headless: `startStudio`). */
  start: () => Promise<StudioHandle>;
  version: string;
  iconDir: string;
  preloadPath: string;
  /** Where the dialog says the logs are. */
  logFile: (handle: StudioHandle | null) => string;
  log: { info(message: string): void; error(message: string, err?: unknown): void };
}

export class DesktopApp {
  private handle: StudioHandle | null = null;
  private window: BrowserWindow | null = null;
  private tray: Tray | null = null;
  private quitting = false;
  private stopped = false;
  private offEngine: (() => void) | null = null;
  private updater: DesktopUpdater | null = null;

  constructor(private readonly opts: DesktopOptions) {}

  /** Take the single-instance lock and boot when Electron is ready; false when another instance runs. */
  run(): boolean {
    if (!app.requestSingleInstanceLock()) {
      app.quit();
      return false;
    }
    app.on('second-instance', () => this.showWindow());
    app.on('activate', () => this.showWindow());
    // The tray keeps Studio alive without windows; quitting is explicit.
    app.on('window-all-closed', () => {});
    app.on('before-quit', (event) => this.onBeforeQuit(event));
    app.whenReady().then(
      () => this.boot(),
      (err: unknown) => this.fail(err),
    );
    return true;
  }

  /** Boot order: server → tray → sign-in → window. */
  async boot(): Promise<void> {
    registerIpc({
      version: this.opts.version,
      origin: () => (this.handle ? new URL(this.handle.url).origin : null),
      dataDir: () => this.handle?.config.paths.root ?? null,
      window: () => this.window,
    });
    denyUnusedPermissions();
    try {
      this.handle = await this.opts.start();
    } catch (err) {
      this.fail(err);
      return;
    }
    this.opts.log.info(`Studio server running at ${this.handle.url}`);
    this.createTray();
    this.watchState();
    await this.openWindow();
  }

  /** The tray's actions (exported for tests through `trayActions`). */
  get trayActions(): TrayActions {
    return {
      openWindow: () => this.showWindow(),
      openInBrowser: () => {
        if (this.handle) void shell.openExternal(this.handle.url);
      },
      copyLanAddress: () => {
        const url = this.handle?.lanUrl();
        if (url) Promise.resolve(clipboard.writeText(url)).catch((err: unknown) => this.opts.log.error('copy failed', err));
      },
      restartEngine: () => {
        this.handle?.restartEngine().catch((err: unknown) => this.opts.log.error('engine restart failed', err));
      },
      stopLlm: () => {
        this.handle?.stopLlm().catch((err: unknown) => this.opts.log.error('LLM stop failed', err));
      },
      restartBackend: () => void this.restartBackend(),
      checkForUpdate: () => void this.handle?.updater?.check(),
      downloadUpdate: () => void this.handle?.updater?.download(),
      installUpdate: () => void this.handle?.updater?.install(),
      quit: () => {
        this.quitting = true;
        app.quit();
      },
    };
  }

  /** Current tray state. */
  trayState(): TrayState {
    const engine = this.handle?.engineState();
    return {
      engine: { status: engine?.status ?? 'stopped', mode: engine?.mode ?? '-', lastError: engine?.lastError ?? null },
      llm: this.handle?.llmState() ?? { status: 'unavailable', model: null },
      lanUrl: this.handle?.lanUrl() ?? null,
      backendRunning: this.handle !== null,
      update: trayUpdate(this.updater),
    };
  }

  /** Rebuild the tray menu, icon and tooltip from the current state. */
  refreshTray(): void {
    if (!this.tray) return;
    const state = this.trayState();
    this.tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenu(state, this.trayActions)));
    this.tray.setImage(this.icon(trayIconState(state.engine.status)));
    this.tray.setToolTip(trayTooltip(state));
  }

  private createTray(): void {
    this.tray = new Tray(this.icon('starting'));
    this.tray.on('click', () => this.showWindow());
    this.refreshTray();
  }

  private watchState(): void {
    this.offEngine?.();
    this.offEngine = this.handle?.onEngineState(() => this.refreshTray()) ?? null;
    // The updater outlives a backend restart: subscribe once, and check at boot and every 6 hours.
    const updater = this.handle?.updater ?? null;
    if (updater && updater !== this.updater) {
      this.updater = updater;
      updater.onChange(() => this.refreshTray());
      void updater.check();
      setInterval(() => void updater.check(), UPDATE_CHECK_MS).unref();
    }
  }

  private async openWindow(): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    const cookie = sessionCookieDetails(handle.url, handle.studio.mintSession());
    const win = this.window ?? this.createWindow(handle.url);
    await win.webContents.session.cookies.set(cookie);
    await win.loadURL(handle.url);
    win.show();
  }

  private createWindow(url: string): BrowserWindow {
    const win = new BrowserWindow({
      width: 1360,
      height: 900,
      show: false,
      backgroundColor: '#101318',
      title: 'Studio',
      icon: path.join(this.opts.iconDir, 'icon.png'),
      webPreferences: { preload: this.opts.preloadPath, contextIsolation: true, sandbox: true, nodeIntegration: false, session: session.defaultSession },
    });
    win.on('close', (event) => {
      if (this.quitting) return;
      event.preventDefault();
      win.hide();
    });
    // Links to other sites open in the user's browser, and only web links (a `file:` or a
    // custom-scheme URL handed to the OS could start a program); the window stays on Studio.
    win.webContents.setWindowOpenHandler(({ url: target }) => {
      if (isWebUrl(target)) void shell.openExternal(target);
      return { action: 'deny' };
    });
    win.webContents.on('will-navigate', (event, target) => {
      if (sameOrigin(target, url)) return;
      event.preventDefault();
      if (isWebUrl(target)) void shell.openExternal(target);
    });
    this.window = win;
    return win;
  }

  private showWindow(): void {
    if (!this.window) {
      void this.openWindow().catch((err: unknown) => this.opts.log.error('could not open the window', err));
      return;
    }
    if (this.window.isMinimized()) this.window.restore();
    this.window.show();
    this.window.focus();
  }

  private async restartBackend(): Promise<void> {
    const old = this.handle;
    this.handle = null;
    this.offEngine?.();
    this.refreshTray();
    await old?.stop();
    try {
      this.handle = await this.opts.start();
    } catch (err) {
      this.fail(err);
      return;
    }
    this.watchState();
    this.refreshTray();
    await this.openWindow();
  }

  private onBeforeQuit(event: ElectronEvent): void {
    this.quitting = true;
    if (this.stopped) return;
    // Stop the server and its children first; exit only when they are gone.
    event.preventDefault();
    this.stopped = true;
    const handle = this.handle;
    this.handle = null;
    this.offEngine?.();
    this.tray?.destroy();
    void (handle ? handle.stop() : Promise.resolve())
      .catch((err: unknown) => this.opts.log.error('shutdown failed', err))
      .finally(() => {
        this.updater?.finishOnExit();
        app.exit(0);
      });
  }

  private fail(err: unknown): void {
    const { title, message } = describeStartupError(err, this.opts.logFile(this.handle));
    this.opts.log.error(title, err);
    dialog.showErrorBox(title, message);
    this.stopped = true;
    app.exit(1);
  }

  private icon(state: 'running' | 'starting' | 'crashed' | 'stopped'): Electron.NativeImage {
    return nativeImage.createFromPath(path.join(this.opts.iconDir, `tray-${state}.png`));
  }
}

const UPDATE_CHECK_MS = 6 * 60 * 60 * 1000;

/** The tray's view of the updater (null while off). */
function trayUpdate(updater: DesktopUpdater | null): TrayState['update'] {
  const s = updater?.status();
  if (!s || s.status === 'off') return null;
  return { status: s.status, version: s.version, percent: s.progress?.percent ?? null, error: s.error };
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** What the UI may ask the browser for: notifications (job finished) and writing the clipboard (copy). */
const ALLOWED_PERMISSIONS = new Set(['notifications', 'clipboard-sanitized-write']);

/** Deny every permission Studio does not use (camera, microphone, geolocation, USB, …). */
function denyUnusedPermissions(): void {
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(ALLOWED_PERMISSIONS.has(permission)));
  session.defaultSession.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
}
