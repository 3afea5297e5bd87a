/**
 * The audit trail (issue 43): who signed in (or failed to, and from where), and every change only
 * an owner or admin may make — settings, node packages, engines, updates, people — recorded as an
 * event with the person's id in `data.user_id`, by one middleware, so no capability has to
 * remember it. The Events page filters by that id; members see only events that carry theirs.
 */
import type { RequestHandler } from 'express';
import type { EventBus } from '../events/event-bus.js';
import { actorOf, type Actor } from './actor.js';
import { isPublicPath } from './authenticator.js';
import { isAdminChange } from './route-policy.js';

/** The fields every audited event carries: who did it. */
export function byWhom(actor: Actor): { user_id: string; name: string } {
  return { user_id: actor.userId, name: actor.name };
}

/** A sign-in, successful or not, with the address it came from. */
export function auditSignIn(events: EventBus, address: string, outcome: { actor: Actor; via: 'api_key' | 'password' } | { name: string | null }): void {
  if ('actor' in outcome) {
    events.emit('auth.signed_in', 'info', `${outcome.actor.name} signed in from ${address}`, { ...byWhom(outcome.actor), address, via: outcome.via });
    return;
  }
  const who = outcome.name === null ? 'with a wrong API key' : `as "${outcome.name.slice(0, 64)}" with a wrong name or password`;
  events.emit('auth.sign_in_failed', 'warning', `A sign-in from ${address} failed ${who}`, { address, ...(outcome.name === null ? {} : { tried_name: outcome.name.slice(0, 64) }) });
}

/**
 * Records every owner-or-admin change once it is answered (its status, a refusal included); the
 * path only, never the query or the body (a settings value, a password).
 */
export function auditAdminChanges(events: EventBus): RequestHandler {
  return (req, res, next) => {
    if (isPublicPath(req.path) || !isAdminChange(req.method, req.path)) return next();
    const path = req.path.slice(0, 300);
    // `close` comes for every request, answered or not: a client that hung up mid-change is recorded too.
    res.once('close', () => {
      const actor = actorOf(res);
      const answered = res.writableFinished;
      events.emit('audit.admin_request', answered && res.statusCode < 400 ? 'info' : 'warning', `${actor.name}: ${req.method} ${path} → ${answered ? res.statusCode : 'cut off'}`, {
        ...byWhom(actor),
        method: req.method,
        path,
        status: res.statusCode,
        ...(answered ? {} : { cut_off: true }),
      });
    });
    next();
  };
}
