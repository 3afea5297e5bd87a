/**
 * Answers the preload bridge's IPC channels. Every argument comes from a web page, so each is
 * checked: paths must lie inside the Studio data directory, URLs must be http(s).
 */
import { ipcMain, shell, type BrowserWindow } from 'electron';
import path from 'node:path';
import type { DesktopChannel, DesktopIpc } from '../preload/bridge.js';

export interface IpcContext {
  version: string;
  /** Studio's own origin (`http://127.0.0.1:8000`), or null before the server started. */
  origin(): string | null;
  /** The data directory, or null before the server started. */
  dataDir(): string | null;
  window(): BrowserWindow | null;
}

type Handlers = { [C in DesktopChannel]: (...args: DesktopIpc[C]['args']) => DesktopIpc[C]['result'] | Promise<DesktopIpc[C]['result']> };

/** The handler of each channel (exported for tests). */
export function ipcHandlers(ctx: IpcContext): Handlers {
  return {
    'app:version': () => ctx.version,
    'shell:reveal': (target) => {
      const root = ctx.dataDir();
      if (!root || typeof target !== 'string') return false;
      const resolved = path.resolve(root, target);
      const rel = path.relative(root, resolved);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return false;
      shell.showItemInFolder(resolved);
      return true;
    },
    'shell:open-external': async (url) => {
      if (!isWebUrl(url)) return false;
      await shell.openExternal(url);
      return true;
    },
    'window:minimize': () => ctx.window()?.minimize(),
    'window:toggle-maximize': () => {
      const win = ctx.window();
      if (!win) return false;
      if (win.isMaximized()) win.unmaximize();
      else win.maximize();
      return win.isMaximized();
    },
    'window:hide': () => ctx.window()?.hide(),
  };
}

/** Register every channel with `ipcMain.handle`. */
export function registerIpc(ctx: IpcContext): void {
  const handlers = ipcHandlers(ctx) as Record<string, (...args: unknown[]) => unknown>;
  for (const [channel, handler] of Object.entries(handlers)) {
    ipcMain.handle(channel, (event, ...args: unknown[]) => {
      // Only Studio's own page may use the bridge: not a page it navigated to, not a frame.
      if (!isStudioSender(event.senderFrame?.url, ctx.origin())) throw new Error(`${channel}: refused for a page that is not Studio's`);
      return handler(...args);
    });
  }
}

/** True for http and https URLs only. */
export function isWebUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** True when an IPC message comes from a page of Studio's own origin. */
export function isStudioSender(frameUrl: string | undefined, origin: string | null): boolean {
  if (!frameUrl || !origin) return false;
  try {
    return new URL(frameUrl).origin === origin;
  } catch {
    return false;
  }
}
