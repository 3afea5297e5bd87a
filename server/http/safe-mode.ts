/**
 * Safe mode: Studio's database failed its boot check, so instead of the full server a small one
 * listens on Studio's address. Like the maintenance gate it answers every route with 503 (pages
 * get a page, `/api/*` a `{"detail"}`), but it says what is wrong and how to restore, and it
 * stays until Studio is restarted after the repair. Nothing reads or writes the damaged file
 * (a copy of it is kept beside it); the report goes to the log and to `events.jsonl` as a
 * `system.safe_mode` event, which the Events page shows once Studio runs again.
 */
import express from 'express';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Config } from '../config.js';
import type { DatabaseCorruptError } from '../db/database-check.js';
import { describeDamagedDatabase, reportDamagedDatabase, type DamagedDatabaseReport } from '../db/restore-steps.js';
import { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import { clientAddress, isLoopbackHost } from './authenticator.js';
import { CROSS_SITE_REFUSED, isCrossSite, needsSameOrigin } from './cross-site.js';
import { HOST_REFUSED, isAllowedHost, refuse } from './host-guard.js';
import { safeModePage } from './pages.js';
import { securityHeaders } from './security-headers.js';

export interface SafeModeDeps {
  config: Readonly<Config>;
  problem: DatabaseCorruptError;
  logger: Logger;
}

/** A running safe-mode server. */
export class SafeMode {
  private constructor(
    readonly report: DamagedDatabaseReport,
    private readonly server: http.Server,
  ) {}

  /** Keep a copy of the damaged file, record what happened, and listen on Studio's address. */
  static async start({ config, problem, logger }: SafeModeDeps): Promise<SafeMode> {
    const report = reportDamagedDatabase(problem);
    const { what, steps } = describeDamagedDatabase(report);
    logger.error(`${what}\nHow to restore:\n${steps.map((step, i) => `  ${i + 1}. ${step}`).join('\n')}`, problem);
    const events = new EventBus({ file: config.paths.eventsFile, logger });
    events.emit('system.safe_mode', 'error', what, { file: report.file, copy: report.copy, problems: report.problems, steps });
    events.close();

    const server = createSafeModeServer(config, report);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new SafeMode(report, server);
  }

  /** The port actually bound. */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

function createSafeModeServer(config: Readonly<Config>, report: DamagedDatabaseReport): http.Server {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const hosts = { bindHost: config.host, allowed: config.allowedHosts };
  app.use((req, res, next) => {
    if (!isAllowedHost(req.headers.host, hosts)) return refuse(req, res, 421, HOST_REFUSED);
    if (needsSameOrigin(req) && isCrossSite(req)) return refuse(req, res, 403, CROSS_SITE_REFUSED);
    next();
  });
  app.use(securityHeaders());
  // Anyone may see this (the API key may live in the damaged database): paths in full only for
  // this machine, relative to the data directory for the LAN.
  app.use((req, res) => {
    const local = isLoopbackHost(clientAddress(req));
    const name = (file: string) => (local ? file : `<data directory>/${path.relative(config.paths.root, file)}`);
    const { what, steps } = describeDamagedDatabase(report, name);
    res.status(503).set('Cache-Control', 'no-store');
    if (req.path === '/api' || req.path.startsWith('/api/')) {
      res.json({ detail: `${what} How to restore: ${steps.map((step, i) => `${i + 1}. ${step}`).join(' ')}` });
    } else {
      res.type('html').send(safeModePage(what, steps));
    }
  });
  const server = config.tls
    ? https.createServer({ cert: fs.readFileSync(config.tls.cert), key: fs.readFileSync(config.tls.key) }, app)
    : http.createServer(app);
  return server;
}
