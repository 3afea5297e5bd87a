/**
 * The desktop bridge: one typed interface shared by the preload script (which implements it),
 * the main process (which answers its IPC channels) and the renderer (which feature-detects
 * `window.studioDesktop` and imports these types with `import type`). Only what a browser
 * cannot do lives here.
 */

/** IPC channels → argument tuple and result, for `ipcRenderer.invoke` / `ipcMain.handle`. */
export interface DesktopIpc {
  'app:version': { args: []; result: string };
  'shell:reveal': { args: [path: string]; result: boolean };
  'shell:open-external': { args: [url: string]; result: boolean };
  'window:minimize': { args: []; result: void };
  'window:toggle-maximize': { args: []; result: boolean };
  'window:hide': { args: []; result: void };
}

export type DesktopChannel = keyof DesktopIpc;

/** What the renderer sees as `window.studioDesktop`. */
export interface StudioDesktopBridge {
  readonly isDesktop: true;
  appVersion(): Promise<string>;
  /** Show a file or folder inside the Studio data directory in the system file manager. */
  revealPath(path: string): Promise<boolean>;
  /** Open an http(s) URL in the user's browser. */
  openExternal(url: string): Promise<boolean>;
  minimizeWindow(): Promise<void>;
  /** Returns whether the window is now maximized. */
  toggleMaximizeWindow(): Promise<boolean>;
  /** Hide the window to the tray (Studio keeps running for LAN users). */
  hideWindow(): Promise<void>;
}
