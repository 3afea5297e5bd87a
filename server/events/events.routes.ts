/**
 * `GET /api/admin/events`: the event log, newest last.
 */
import express from 'express';
import { z } from 'zod';
import { validate } from '../http/errors.js';
import type { EventBus } from './event-bus.js';
import { isEventTypeFilter, SEVERITIES, type Severity } from '../contracts/events.contract.js';

const commaList = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

const eventsQuery = z.object({
  limit: z.coerce.number().int().min(0).max(1000).default(100),
  // Checked against the one list of event types: a misspelt type is a 400, not an empty answer.
  types: commaList.pipe(z.array(z.string().refine(isEventTypeFilter, { error: (issue) => `unknown event type ${JSON.stringify(issue.input)}` }))),
  severity: commaList.pipe(z.array(z.enum(SEVERITIES as [Severity, ...Severity[]]))),
});

/** Routes of the event log. */
export function eventsRoutes(events: EventBus): express.Router {
  const router = express.Router();
  router.get('/api/admin/events', (req, res) => {
    const query = validate(eventsQuery, req.query, 'query');
    res.json(events.list({ limit: query.limit, types: query.types, severities: query.severity }));
  });
  return router;
}
