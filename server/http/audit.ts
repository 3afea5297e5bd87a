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

type Subject = Record<string, string | string[]>;

/**
 * What a change was about, for the changes an auditor asks "which one?" of: which setting (its
 * name, never its value), which node package, which engine. Only these named fields of the body are
 * read; a URL loses any `user:password@` (a refused body may carry one).
 */
const SUBJECTS: ReadonlyArray<readonly [method: string, path: RegExp, pick: (body: Record<string, unknown>) => Subject]> = [
  ['PUT', /^\/api\/admin\/settings\/?$/i, (body) => ({ fields: Object.keys(body).slice(0, 20).map((k) => clip(k)) })],
  ['PUT', /^\/api\/admin\/settings\/env\/?$/i, (body) => strings(body, ['key'])],
  ['POST', /^\/api\/admin\/nodes\/install\/?$/i, (body) => strings(body, ['url', 'repo_url', 'commit'])],
  ['POST', /^\/api\/admin\/engines\/?$/i, (body) => strings(body, ['name', 'url'])],
];

function clip(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1***@').slice(0, 200);
}

function strings(body: Record<string, unknown>, fields: readonly string[]): Subject {
  return Object.fromEntries(fields.filter((f) => typeof body[f] === 'string').map((f) => [f, clip(body[f] as string)]));
}

function subjectOf(method: string, path: string, body: unknown): Subject | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const rule = SUBJECTS.find(([m, re]) => m === method && re.test(path));
  const subject = rule ? rule[2](body as Record<string, unknown>) : {};
  return Object.keys(subject).length > 0 ? subject : null;
}

/**
 * Records every owner-or-admin change once it is answered (its status, a refusal included); the
 * path, never the query, and of the body only the names `SUBJECTS` picks (never a settings value
 * or a password).
 */
export function auditAdminChanges(events: EventBus): RequestHandler {
  return (req, res, next) => {
    if (isPublicPath(req.path) || !isAdminChange(req.method, req.path)) return next();
    const path = req.path.slice(0, 300);
    // `close` comes for every request, answered or not: a client that hung up mid-change is recorded too.
    res.once('close', () => {
      const actor = actorOf(res);
      const answered = res.writableFinished;
      // The body is parsed after this middleware: by now it is there (or never was).
      const subject = subjectOf(req.method, req.path, req.body as unknown);
      const about = subject ? ` (${Object.entries(subject).map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(', ') : v}`).join('; ')})` : '';
      events.emit('audit.admin_request', answered && res.statusCode < 400 ? 'info' : 'warning', `${actor.name}: ${req.method} ${path}${about} → ${answered ? res.statusCode : 'cut off'}`, {
        ...byWhom(actor),
        method: req.method,
        path,
        status: res.statusCode,
        ...(subject ? { subject } : {}),
        ...(answered ? {} : { cut_off: true }),
      });
    });
    next();
  };
}
