/**
 * The preload script: exposes `window.studioDesktop` through contextBridge. It runs sandboxed,
 * so it is compiled to CommonJS (`dist/preload/preload.cjs`, see scripts/build-preload.mjs).
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { DesktopChannel, DesktopIpc, StudioDesktopBridge } from './bridge.js';

function invoke<C extends DesktopChannel>(channel: C, ...args: DesktopIpc[C]['args']): Promise<DesktopIpc[C]['result']> {
  return ipcRenderer.invoke(channel, ...args) as Promise<DesktopIpc[C]['result']>;
}

const bridge: StudioDesktopBridge = {
  isDesktop: true,
  appVersion: () => invoke('app:version'),
  revealPath: (path) => invoke('shell:reveal', path),
  openExternal: (url) => invoke('shell:open-external', url),
  minimizeWindow: () => invoke('window:minimize'),
  toggleMaximizeWindow: () => invoke('window:toggle-maximize'),
  hideWindow: () => invoke('window:hide'),
};

contextBridge.exposeInMainWorld('studioDesktop', bridge);
