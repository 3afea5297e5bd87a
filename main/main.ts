/**
 * Electron main process (`npm run desktop`): runs the same Studio server in-process and shows it
 * in a window. Kept thin on purpose; the desktop issue adds the tray, sign-in hand-off and
 * packaging details. Everything a user does still goes over HTTP/WS, like a LAN browser.
 */
import { app, BrowserWindow, dialog } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../server/config.js';
import { Studio } from '../server/studio.js';

const here = path.dirname(fileURLToPath(import.meta.url));
let studio: Studio | null = null;
let window: BrowserWindow | null = null;

async function boot(): Promise<void> {
  const config = await loadConfig();
  studio = Studio.create(config, { console: true });
  await studio.start();
  window = new BrowserWindow({
    width: 1280,
    height: 860,
    backgroundColor: '#101318',
    webPreferences: { preload: path.join(here, '..', 'preload', 'preload.cjs'), contextIsolation: true, sandbox: true },
  });
  await window.loadURL(studio.url);
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });
  app.on('before-quit', (event) => {
    if (!studio) return;
    event.preventDefault();
    const stopping = studio;
    studio = null;
    void stopping.stop().finally(() => app.exit(0));
  });
  app
    .whenReady()
    .then(boot)
    .catch((err: unknown) => {
      dialog.showErrorBox('Studio could not start', err instanceof Error ? err.message : String(err));
      app.exit(1);
    });
}
