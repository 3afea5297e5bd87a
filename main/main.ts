/**
 * Electron main entry (`npm run desktop`, the packaged app). Thin: it wires Electron to the
 * DesktopApp and the shared server boot path, and sends main-process logs to electron-log.
 */
import { app } from 'electron';
import log from 'electron-log/main';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHIPPED_ROOT } from '../server/config.js';
import { PRIVATE_LOG_WRITE, tightenLogMode } from '../server/logging.js';
import { DesktopApp } from './desktop-app.js';
import { DesktopUpdater, type AppUpdaterLike } from './desktop-updater.js';
import { startStudio } from './studio-handle.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const resourcesDir = path.join(SHIPPED_ROOT, 'resources');

// No renderer bridge: pages (any page the window might show) get no logging channel into main.
log.initialize({ preload: false, spyRendererConsole: false });
log.transports.file.maxSize = 5 * 1024 * 1024;
log.transports.file.writeOptions = { ...PRIVATE_LOG_WRITE };

// One updater for the app's life (a backend restart keeps it): electron-updater's is one per process.
let updater: DesktopUpdater | null = null;
const updaterLog = { info: (m: string) => log.info(m), error: (m: string, err?: unknown) => log.error(m, err) };

const desktop = new DesktopApp({
  start: async () => {
    const handle = await startStudio({
      console: false,
      desktopUpdater: (config) =>
        (updater ??= new DesktopUpdater({
          feedUrl: config.urls.desktopUpdates,
          currentVersion: app.getVersion(),
          packaged: app.isPackaged,
          // electron-updater (CommonJS) picks the updater of this package type: AppImage, deb, NSIS, dmg.
          load: () => (createRequire(import.meta.url)('electron-updater') as { autoUpdater: AppUpdaterLike }).autoUpdater,
          log: updaterLog,
          quitApp: () => desktop.trayActions.quit(),
        })),
      // Restart and update relaunch the whole app; quitting runs the shell's orderly shutdown first.
      relaunch: () => {
        app.relaunch();
        app.quit();
      },
    });
    log.transports.file.resolvePathFn = () => path.join(handle.config.paths.logs, 'main.log');
    tightenLogMode(path.join(handle.config.paths.logs, 'main.log'));
    return handle;
  },
  version: app.getVersion(),
  iconDir: path.join(resourcesDir, 'icons'),
  preloadPath: path.join(here, '..', 'preload', 'preload.cjs'),
  logFile: (handle) => (handle ? path.join(handle.config.paths.logs, 'main.log') : log.transports.file.getFile().path),
  log: { info: (m) => log.info(m), error: (m, err) => log.error(m, err) },
});
desktop.run();
