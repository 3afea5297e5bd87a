/**
 * `GET /api/admin/events`: the event log, newest last. Owners and admins see every event and may
 * ask for one person's (`?user=`); members and viewers see only the events that carry their own
 * id (`data.user_id`: their jobs, their sign-ins, their keys), never system events.
 */
import express from 'express';
import { validate } from './errors.js';
import type { EventBus } from '../events/event-bus.js';
import { eventsQuery, type StudioEvent } from '../contracts/events.contract.js';
import { actorOf, seesEveryone, type Actor } from './actor.js';

/** Whose an event is: the person it names in `data.user_id` (none: a system event). */
function eventOwner(event: StudioEvent): string | null {
  const id = event.data['user_id'];
  return typeof id === 'string' ? id : null;
}

/** Whether `actor` may see `event` (the REST log and the WebSocket push ask alike). */
export function maySeeEvent(actor: Actor, event: StudioEvent): boolean {
  return seesEveryone(actor) || eventOwner(event) === actor.userId;
}

/** Routes of the event log. */
export function eventsRoutes(events: EventBus): express.Router {
  const router = express.Router();
  router.get('/api/admin/events', (req, res) => {
    const query = validate(eventsQuery, req.query, 'query');
    const actor = actorOf(res);
    const person = seesEveryone(actor) ? query.user : actor.userId;
    const where = person === undefined ? undefined : (event: StudioEvent) => eventOwner(event) === person;
    res.json(events.list({ limit: query.limit, types: query.types, severities: query.severity, where }));
  });
  return router;
}
