/**
 * The installed app's own updates, through electron-updater and a generic feed (a web folder with
 * the `latest*.yml` and installers `npm run dist` writes). Off until a feed is configured
 * (`DESKTOP_UPDATE_URL`) and off when not packaged (`npm run desktop` runs from source). A check
 * never downloads by itself: the user starts the download (tray or System page), progress is
 * reported, and the downloaded version installs when the app quits (or at once, on request).
 * The backend's git update is the other channel, for headless installs.
 */
import type { DesktopUpdateStatus } from '../server/contracts/system.contract.js';

/** What this module uses of electron-updater's `AppUpdater` (its `autoUpdater`, or a class in tests). */
export interface AppUpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  logger: unknown;
  setFeedURL(options: { provider: 'generic'; url: string }): void;
  checkForUpdates(): Promise<unknown>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

export interface DesktopUpdaterOptions {
  /** The feed; null: updates are off. */
  feedUrl: string | null;
  currentVersion: string;
  /** `app.isPackaged`: a checkout run by `npm run desktop` has nothing to replace. */
  packaged: boolean;
  /** Loads electron-updater only when updates are on. */
  load: () => AppUpdaterLike;
  log: { info(message: string): void; error(message: string, err?: unknown): void };
  /** Quit the app the orderly way (the shell stops the server, then calls `finishOnExit`). */
  quitApp?: () => void;
  now?: () => Date;
}

type Listener = (status: DesktopUpdateStatus) => void;

export class DesktopUpdater {
  private updater: AppUpdaterLike | null = null;
  private restartAfterInstall = false;
  private state: DesktopUpdateStatus;
  private readonly listeners = new Set<Listener>();

  constructor(private readonly opts: DesktopUpdaterOptions) {
    const reason = !opts.feedUrl ? 'No update feed is configured (DESKTOP_UPDATE_URL).' : !opts.packaged ? 'Not an installed app: updates apply to the packaged app only.' : null;
    this.state = {
      status: reason ? 'off' : 'idle',
      reason,
      current_version: opts.currentVersion,
      version: null,
      feed_url: opts.feedUrl,
      progress: null,
      error: null,
      checked_at: null,
    };
  }

  status(): DesktopUpdateStatus {
    return { ...this.state, progress: this.state.progress ? { ...this.state.progress } : null };
  }

  /** Called on every change (the tray rebuilds its menu). Returns an unsubscribe. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ask the feed for a newer version. Resolves with the state after the check (errors are in it). */
  async check(): Promise<DesktopUpdateStatus> {
    const updater = this.ensure();
    if (!updater || this.state.status === 'downloading' || this.state.status === 'checking') return this.status();
    this.set({ status: 'checking', error: null });
    try {
      await updater.checkForUpdates();
    } catch (err) {
      this.fail(err);
    }
    return this.status();
  }

  /** Download the version the last check found; progress is reported as it arrives. */
  async download(): Promise<DesktopUpdateStatus> {
    const updater = this.ensure();
    if (!updater || this.state.status !== 'available') return this.status();
    this.set({ status: 'downloading', progress: { percent: 0, transferred: 0, total: 0 }, error: null });
    try {
      await updater.downloadUpdate();
    } catch (err) {
      this.fail(err);
    }
    return this.status();
  }

  /**
   * Install the downloaded version now: the app quits (server and children stopped first) and the
   * new version starts. Without this the download installs at the next quit, without a restart.
   */
  install(): DesktopUpdateStatus {
    if (this.updater && this.state.status === 'downloaded' && this.opts.quitApp) {
      this.restartAfterInstall = true;
      // Let the answer to the request that asked for it go out first.
      setTimeout(() => this.opts.quitApp?.(), 200);
    }
    return this.status();
  }

  /**
   * The shell's last step before it exits, once Studio has stopped: install a downloaded version
   * (electron-updater's own quit hook would run only on an Electron `quit` the shell does not wait for).
   */
  finishOnExit(): void {
    if (!this.updater || this.state.status !== 'downloaded') return;
    try {
      this.updater.quitAndInstall(true, this.restartAfterInstall);
    } catch (err) {
      this.opts.log.error('installing the update failed', err);
    }
  }

  private ensure(): AppUpdaterLike | null {
    if (this.state.status === 'off' || !this.opts.feedUrl) return null;
    if (this.updater) return this.updater;
    const updater = this.opts.load();
    // The user decides when to download; a downloaded update installs when the app quits.
    updater.autoDownload = false;
    updater.autoInstallOnAppQuit = true;
    updater.logger = { info: (m: unknown) => this.opts.log.info(`updater: ${String(m)}`), warn: (m: unknown) => this.opts.log.info(`updater: ${String(m)}`), error: (m: unknown) => this.opts.log.error(`updater: ${String(m)}`), debug: () => {} };
    updater.setFeedURL({ provider: 'generic', url: this.opts.feedUrl });
    updater.on('update-available', (info: { version: string }) => this.set({ status: 'available', version: info.version, checked_at: this.now() }));
    updater.on('update-not-available', () => this.set({ status: 'not-available', version: null, checked_at: this.now() }));
    updater.on('download-progress', (p: { percent: number; transferred: number; total: number }) =>
      this.set({ progress: { percent: Math.round(p.percent * 10) / 10, transferred: p.transferred, total: p.total } }),
    );
    updater.on('update-downloaded', (info: { version: string }) => this.set({ status: 'downloaded', version: info.version, progress: null }));
    updater.on('error', (err: Error) => this.fail(err));
    this.updater = updater;
    return updater;
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    // electron-updater reports one failure both as an event and as a rejection.
    if (this.state.status === 'error' && this.state.error === message) return;
    this.opts.log.error('update failed', err);
    this.set({ status: 'error', error: message.split('\n')[0] ?? message, progress: null, checked_at: this.state.checked_at ?? this.now() });
  }

  private set(change: Partial<DesktopUpdateStatus>): void {
    this.state = { ...this.state, ...change };
    const snapshot = this.status();
    for (const listener of this.listeners) listener(snapshot);
  }

  private now(): string {
    return (this.opts.now?.() ?? new Date()).toISOString();
  }
}
