/**
 * Which updater applies to this installation, and the installed desktop app's own updater
 * (`/api/admin/system/app-update…`, beyond the spec). The desktop app passes its updater in; a
 * headless install has none and updates its backend from git (`update.routes.ts`). Parse and delegate.
 */
import express from 'express';
import type { AppUpdateInfo, DesktopUpdateStatus } from '../contracts/system.contract.js';
import { DomainError } from '../domain-error.js';

/** The desktop app's updater as the server sees it (main/desktop-updater.ts). */
export interface DesktopUpdates {
  status(): DesktopUpdateStatus;
  check(): Promise<DesktopUpdateStatus>;
  download(): Promise<DesktopUpdateStatus>;
  install(): DesktopUpdateStatus;
}

/** What System shows about updates: the desktop channel when the app runs Studio, else git. */
function appUpdateInfo(desktop: DesktopUpdates | null, repoConfigured: boolean): AppUpdateInfo {
  return { channel: desktop ? 'desktop' : 'git', desktop: desktop?.status() ?? null, git: { repo_configured: repoConfigured } };
}

/** `GET /system/app-update`; `POST /system/app-update/check`, `/download`, `/install`. */
export function appUpdateRoutes(desktop: DesktopUpdates | null, repoConfigured: () => boolean): express.Router {
  const router = express.Router();
  const updater = (): DesktopUpdates => {
    if (!desktop) throw new DomainError('conflict', 'This installation is not the desktop app: it updates its backend from git (POST /api/admin/system/update)');
    return desktop;
  };

  router.get('/api/admin/system/app-update', (_req, res) => {
    res.set('Cache-Control', 'no-store').json(appUpdateInfo(desktop, repoConfigured()));
  });
  router.post('/api/admin/system/app-update/check', async (_req, res) => {
    res.json(await updater().check());
  });
  // The download runs on; the answer says it started (progress: GET app-update).
  router.post('/api/admin/system/app-update/download', (_req, res) => {
    const u = updater();
    void u.download();
    res.json(u.status());
  });
  router.post('/api/admin/system/app-update/install', (_req, res) => {
    res.json(updater().install());
  });
  return router;
}
