/**
 * System routes (spec "System and settings"; Versioning 6). Parse and delegate.
 * - `GET /api/health` (public): liveness for scripts, the desktop shell and the restart flow. It
 *   says nothing secret: status, version and the engine's state.
 * - status, uptime, telemetry, restart; environment settings and the secret reveal;
 * - update from git and the syncs; which updater applies to this installation, and the installed
 *   desktop app's own updater (`/api/admin/system/app-update…`, beyond the spec: the desktop app
 *   passes its updater in, a headless install has none and updates its backend from git);
 * - the browser extension's folder as a ZIP to unpack and load (Chromium "Load unpacked"); 404
 *   when the folder is missing from this installation;
 * - the home page's first-run guide (README "First-run guide").
 */
import fs from 'node:fs';
import express from 'express';
import { writeDirectoryZip } from '../assets/assets-zip.js';
import { firstRunBody } from '../contracts/first-run.contract.js';
import { envPutBody, revealBody, updateBody, updateRepositoryBody, type AppUpdateInfo, type DesktopUpdateStatus } from '../contracts/system.contract.js';
import { DomainError } from '../domain-error.js';
import { clientAddress } from '../http/authenticator.js';
import { contentDisposition } from '../http/content-disposition.js';
import { validate } from '../http/errors.js';
import { deviceOf } from '../http/sign-in-log.js';
import { romeIso } from '../time.js';
import type { EnvSettingsService } from './env-settings.service.js';
import type { FirstRunService } from './first-run.service.js';
import type { RestartService } from './restart.service.js';
import type { StatusService } from './status.service.js';
import type { TelemetryService } from './telemetry.service.js';
import type { UpdateRepository } from './update-repository.js';
import type { UpdateService } from './update.service.js';

/** The desktop app's updater as the server sees it (main/desktop-updater.ts). */
export interface DesktopUpdates {
  status(): DesktopUpdateStatus;
  check(): Promise<DesktopUpdateStatus>;
  download(): Promise<DesktopUpdateStatus>;
  install(): DesktopUpdateStatus;
}

export interface SystemRouteDeps {
  version: string;
  startedAt: number;
  engineStatus: () => string;
  status: StatusService;
  telemetry: TelemetryService;
  restart: RestartService;
  envSettings: EnvSettingsService;
  update: UpdateService;
  repository: UpdateRepository;
  desktop: DesktopUpdates | null;
  repoConfigured: () => boolean;
  /** `<appDir>/resources/browser-extension`. */
  extensionDir: string;
  firstRun: FirstRunService;
}

export function systemRoutes(deps: SystemRouteDeps): express.Router {
  const { status, telemetry, restart, envSettings, update, repository, desktop, firstRun, startedAt } = deps;
  const router = express.Router();
  const uptimeSeconds = () => Math.round((Date.now() - startedAt) / 1000);

  router.get('/api/health', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok', version: deps.version, engine: deps.engineStatus(), uptime_seconds: uptimeSeconds() });
  });

  router.get('/api/admin/system/status', async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await status.status());
  });

  router.get('/api/admin/system/uptime', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ started_at: romeIso(new Date(startedAt)), uptime_seconds: uptimeSeconds() });
  });

  router.get('/api/admin/telemetry', async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await telemetry.current());
  });

  router.get('/api/admin/telemetry/history', (_req, res) => {
    res.set('Cache-Control', 'no-store').json(telemetry.history());
  });

  router.post('/api/admin/system/restart', (_req, res) => {
    if (!restart.supported) throw new DomainError('conflict', 'This Studio was started without a way to relaunch itself; restart it from where it was started');
    // Answer first: the restart starts once the response has gone out.
    res.once('finish', () => restart.schedule(0, 'requested'));
    res.json({ status: 'restarting', message: 'Studio is restarting; reconnect in about 2 seconds' });
  });

  router.get('/api/admin/settings/env', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ groups: envSettings.groups() });
  });

  router.put('/api/admin/settings/env', async (req, res) => {
    const body = validate(envPutBody, req.body ?? {});
    const entry = await envSettings.update(body.key, body.value);
    res.json({ status: 'updated', entry });
  });

  router.post('/api/admin/settings/reveal', (req, res) => {
    const body = validate(revealBody, req.body ?? {});
    res.set('Cache-Control', 'no-store').json(envSettings.reveal(clientAddress(req), body.api_key));
  });

  router.get('/api/admin/system/update-repository', (_req, res) => {
    res.json(repository.current());
  });

  router.put('/api/admin/system/update-repository', (req, res) => {
    const body = validate(updateRepositoryBody, req.body ?? {}, { ownMessages: true });
    res.json(repository.set(body.url));
  });

  router.get('/api/admin/system/remote-version', async (_req, res) => {
    res.set('Cache-Control', 'no-store').json(await update.remoteVersion());
  });

  router.post('/api/admin/system/update', async (req, res) => {
    const body = validate(updateBody, req.body ?? {});
    res.json(await update.update(body.skip_components ?? []));
  });

  router.post('/api/admin/workflows/sync', async (_req, res) => {
    res.json(await update.syncWorkflows());
  });

  router.post('/api/admin/models/sync', async (_req, res) => {
    res.json(await update.syncModels());
  });

  const updater = (): DesktopUpdates => {
    if (!desktop) throw new DomainError('conflict', 'This installation is not the desktop app: it updates its backend from git (POST /api/admin/system/update)');
    return desktop;
  };

  router.get('/api/admin/system/app-update', (_req, res) => {
    const info: AppUpdateInfo = { channel: desktop ? 'desktop' : 'git', desktop: desktop?.status() ?? null, git: { repo_configured: deps.repoConfigured() } };
    res.set('Cache-Control', 'no-store').json(info);
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

  router.get('/api/admin/system/browser-extension', async (_req, res) => {
    const dir = deps.extensionDir;
    if (!fs.existsSync(`${dir}/manifest.json`)) throw new DomainError('not_found', 'The browser extension is not part of this installation (resources/browser-extension is missing)');
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', contentDisposition('attachment', 'studio-browser-extension.zip'));
    res.set('Cache-Control', 'no-store');
    await writeDirectoryZip(dir, res, controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
  });

  router.get('/api/admin/system/first-run', (req, res) => {
    res.set('Cache-Control', 'no-store').json(firstRun.report(deviceOf(req)));
  });

  router.put('/api/admin/system/first-run', (req, res) => {
    const body = validate(firstRunBody, req.body ?? {});
    res.json(firstRun.update(body, deviceOf(req)));
  });

  return router;
}
