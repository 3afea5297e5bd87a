/**
 * `/api/engine/view` for people who see only their own work (issue 43): a file of another
 * person's job or upload answers exactly as a file that does not exist (the engine route's own
 * 404), before the engine's route is reached. Owner and admins pass straight through.
 */
import express from 'express';
import { DomainError } from '../domain-error.js';
import { actorOf } from '../http/actor.js';
import { viewQuery } from '../contracts/engine.contract.js';
import type { AssetOwners } from './asset-owners.js';

/** The guard; a query the engine route would refuse is left to it (same 400 for everyone). */
export function viewGuardRoutes(owners: AssetOwners | undefined): express.Router {
  const router = express.Router();
  router.get('/api/engine/view', (req, res, next) => {
    const query = viewQuery.safeParse(req.query);
    if (!owners || !query.success || owners.reachesView(actorOf(res), query.data)) return next();
    throw new DomainError('not_found', `File not found: ${query.data.filename}`);
  });
  return router;
}
