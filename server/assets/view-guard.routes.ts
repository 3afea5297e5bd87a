/**
 * `/api/engine/view` for people who see only their own work (issue 43): a file of another
 * person's job or upload answers exactly as a file that does not exist, in whatever state the
 * engine is (the engine's own answer for a missing file), before the engine's route is reached. Owner and admins pass straight through.
 */
import express from 'express';
import { actorOf } from '../http/actor.js';
import { viewQuery, type ViewQuery } from '../contracts/engine.contract.js';
import type { AssetOwners } from './asset-owners.js';

/** The guard; a query the engine route would refuse is left to it (same 400 for everyone). */
export function viewGuardRoutes(owners: AssetOwners | undefined, asMissing: (query: ViewQuery) => Promise<never>): express.Router {
  const router = express.Router();
  router.get('/api/engine/view', async (req, res, next) => {
    const query = viewQuery.safeParse(req.query);
    if (!owners || !query.success || owners.reachesView(actorOf(res), query.data)) return next();
    await asMissing(query.data);
  });
  return router;
}
