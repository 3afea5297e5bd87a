/**
 * The maintenance gate: while an update copies components, every route answers 503 (spec,
 * Maintenance mode). The update feature switches it; tests switch it directly.
 */
import type { RequestHandler } from 'express';
import { maintenancePage } from './pages.js';

const MAINTENANCE_DETAIL = 'System is updating, please wait...';

export class Maintenance {
  private on = false;

  get active(): boolean {
    return this.on;
  }

  enable(): void {
    this.on = true;
  }

  disable(): void {
    this.on = false;
  }
}

/** First middleware of the app: short-circuits everything while maintenance is on. */
export function maintenanceGate(maintenance: Maintenance): RequestHandler {
  return (req, res, next) => {
    if (!maintenance.active) return next();
    res.status(503).set('Retry-After', '3').set('Cache-Control', 'no-store');
    if (req.path.startsWith('/api/') || req.path === '/api') {
      res.json({ detail: MAINTENANCE_DETAIL });
    } else {
      res.type('html').send(maintenancePage());
    }
  };
}
