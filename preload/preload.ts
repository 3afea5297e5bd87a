/**
 * The preload bridge: only what a browser cannot do. The renderer feature-detects
 * `window.studioDesktop` and works without it (LAN browsers).
 */
import { contextBridge, ipcRenderer } from 'electron';

/** The typed surface shared with the renderer. */
export interface StudioDesktopBridge {
  isDesktop: true;
  appVersion(): Promise<string>;
}

const bridge: StudioDesktopBridge = {
  isDesktop: true,
  appVersion: () => ipcRenderer.invoke('app:version') as Promise<string>,
};

contextBridge.exposeInMainWorld('studioDesktop', bridge);
