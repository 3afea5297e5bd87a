/**
 * `GET /api/admin/events`: the event log, newest last.
 */
import express from 'express';
import { validate } from './errors.js';
import type { EventBus } from '../events/event-bus.js';
import { eventsQuery } from '../contracts/events.contract.js';

/** Routes of the event log. */
export function eventsRoutes(events: EventBus): express.Router {
  const router = express.Router();
  router.get('/api/admin/events', (req, res) => {
    const query = validate(eventsQuery, req.query, 'query');
    res.json(events.list({ limit: query.limit, types: query.types, severities: query.severity }));
  });
  return router;
}
