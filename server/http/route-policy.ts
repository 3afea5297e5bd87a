/**
 * Who may call which route (issue 43), as one table keyed by method and path family, so that no
 * capability carries a permission check of its own and a route added later is covered at once:
 *
 * - a read (GET, HEAD) needs `read`, except the admin-only families below (settings, system
 *   updates, node packages, engines, setup, disk, chat bot, LLM runtimes, users, whole-output ZIPs);
 * - a change (any other method) needs `admin`, except the `run` families below (running, retrying,
 *   one's own presets, chats, uploads, history), and the personal ones anyone signed in may use
 *   (sign out, one's own keys and notification targets).
 *
 * The actor's reach is its role's (viewer read, member run, owner and admin admin) narrowed by a
 * personal key's scope. Which records a reach shows (one's own, or everyone's) is each
 * capability's filter, not this table. The README's table "Who may call what" is this one.
 */
import type { RequestHandler } from 'express';
import type { KeyScope } from '../contracts/users.contract.js';
import { actorOf, reachOf, reaches } from './actor.js';
import { isPublicPath } from './authenticator.js';
import { HttpError } from './errors.js';

type Rule = readonly [method: string, path: RegExp];

const SEGMENT = '[^/]+';
// Case-blind and with an optional trailing slash, as Express matches routes: `/API/ADMIN/SETTINGS/`
// reaches the settings route, so it must meet the settings rule.
const route = (method: string, path: string): Rule => [method, new RegExp(`^${path.replaceAll(':x', SEGMENT)}/?$`, 'i')];
const family = (method: string, prefix: string): Rule => [method, new RegExp(`^${prefix}(?:/.*)?$`, 'i')];

/** Reads only owners and admins may make. */
const ADMIN_READS: readonly Rule[] = [
  family('GET', '/api/admin/settings'),
  family('GET', '/api/admin/users'),
  family('GET', '/api/admin/nodes'),
  family('GET', '/api/admin/engines'),
  family('GET', '/api/admin/setup'),
  family('GET', '/api/admin/disk'),
  family('GET', '/api/admin/chatbot'),
  family('GET', '/api/admin/llm/runtimes'),
  family('GET', '/api/admin/llm/repo-files'),
  family('GET', '/api/admin/activity-log'),
  family('GET', '/api/admin/system/remote-version'),
  family('GET', '/api/admin/system/update-repository'),
  family('GET', '/api/admin/system/app-update'),
  family('GET', '/api/admin/system/first-run'),
  family('GET', '/api/admin/workflows/import'),
  // Every job's outputs at once: a person's own outputs come one job at a time.
  route('GET', '/api/admin/outputs-zip'),
  route('GET', '/api/admin/assets/download'),
  route('GET', '/api/admin/comfy-api'),
];

/** Changes a member makes: running, and their own records. */
const RUN_WRITES: readonly Rule[] = [
  route('POST', '/api/run/upload-image'),
  route('POST', '/api/run/:x/build'),
  route('POST', '/api/run/:x/execute'),
  route('POST', '/api/admin/presets'),
  route('POST', '/api/admin/presets/import'),
  route('POST', '/api/admin/presets/from-job/:x'),
  route('PUT', '/api/admin/presets/:x/rename'),
  route('DELETE', '/api/admin/presets/:x'),
  route('POST', '/api/admin/presets/:x/run'),
  route('POST', '/api/admin/modelhub/image/:x/preset'),
  route('POST', '/api/admin/batches'),
  route('POST', '/api/admin/batches/:x/pause'),
  route('POST', '/api/admin/batches/:x/resume'),
  route('POST', '/api/admin/batches/:x/cancel'),
  route('POST', '/api/admin/history/retry'),
  route('POST', '/api/admin/history/delete'),
  route('POST', '/api/admin/history/:x/star'),
  route('POST', '/api/admin/history/:x/run-again'),
  route('POST', '/api/admin/provenance/import'),
  route('POST', '/api/admin/provenance/run'),
  route('POST', '/api/admin/queue/cancel'),
  route('POST', '/api/admin/assets/upload-inputs'),
  route('POST', '/api/admin/assets/delete'),
  route('POST', '/api/admin/loras/gallery/to-input/:x'),
  route('POST', '/api/admin/llm/chat'),
  route('POST', '/api/admin/llm/improve-prompt'),
  route('POST', '/api/admin/llm/chats'),
  route('PATCH', '/api/admin/llm/chats/:x'),
  route('DELETE', '/api/admin/llm/chats/:x'),
  route('POST', '/api/admin/llm/chats/:x/messages'),
  // The engine's own API (issue 44): submitting, its queue and history, uploads.
  ['POST', /^\/comfy(?:\/api)?\/(?:prompt|queue|interrupt|history|upload\/image|upload\/mask)\/?$/i],
];

/**
 * Changes anyone signed in makes about themselves (a `read` key included: its new keys stay
 * `read`), and their own notification targets (a viewer also wants word when something is done).
 */
const PERSONAL_WRITES: readonly Rule[] = [
  route('POST', '/api/auth/logout'),
  route('POST', '/api/me/keys'),
  route('DELETE', '/api/me/keys/:x'),
  route('POST', '/api/notifications/targets'),
  route('PATCH', '/api/notifications/targets/:x'),
  route('DELETE', '/api/notifications/targets/:x'),
  route('POST', '/api/notifications/targets/:x/test'),
];

const matches = (rules: readonly Rule[], method: string, path: string): boolean => rules.some(([m, re]) => m === method && re.test(path));

/** The reach a request needs. */
export function requiredReach(method: string, path: string): KeyScope {
  const verb = method === 'HEAD' ? 'GET' : method.toUpperCase();
  if (verb === 'GET') return matches(ADMIN_READS, verb, path) ? 'admin' : 'read';
  if (matches(PERSONAL_WRITES, verb, path)) return 'read';
  return matches(RUN_WRITES, verb, path) ? 'run' : 'admin';
}

/** A change only owners and admins may make (the audit records each one). */
export function isAdminChange(method: string, path: string): boolean {
  const verb = method.toUpperCase();
  return verb !== 'GET' && verb !== 'HEAD' && verb !== 'OPTIONS' && requiredReach(verb, path) === 'admin';
}

/** 403 `{detail}` for a request past the actor's reach; after authentication, before every router. */
export function routePolicy(): RequestHandler {
  return (req, res, next) => {
    if (isPublicPath(req.path) || req.method === 'OPTIONS') return next();
    const need = requiredReach(req.method, req.path);
    const actor = actorOf(res);
    if (reaches(reachOf(actor), need)) return next();
    const why = actor.scope !== null && reaches(reachOf({ ...actor, scope: null }), need) ? `this key's scope is ${actor.scope}` : `your role is ${actor.role}`;
    next(new HttpError(403, `Not allowed: this needs ${need === 'admin' ? 'an admin' : `the ${need}`} permission, and ${why}`));
  };
}

const ENV_SETTING = route('PUT', '/api/admin/settings/env');

/**
 * The one change past an admin's reach: the owner's own key (`API_KEY`), which would sign the
 * owner out and hand an admin the owner's place. Runs after the JSON body is read.
 */
export function ownerOnlyChanges(): RequestHandler {
  return (req, res, next) => {
    const body: unknown = req.body;
    const key = typeof body === 'object' && body !== null ? (body as { key?: unknown }).key : undefined;
    if (matches([ENV_SETTING], req.method, req.path) && typeof key === 'string' && key.trim().toUpperCase() === 'API_KEY' && actorOf(res).role !== 'owner') {
      next(new HttpError(403, 'Only the owner changes API_KEY'));
      return;
    }
    next();
  };
}
