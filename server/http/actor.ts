/**
 * Who is asking: the person behind a request or a WebSocket, as authentication found them. Every
 * capability reads it from here (`actorOf`) to decide what a person sees and may do; only the
 * authentication middleware and the WebSocket handshake set it. With no other person added, every
 * caller is the owner, and Studio answers exactly as it did before accounts.
 */
import type { Response } from 'express';
import { OWNER_ID, type KeyScope, type Role } from '../contracts/users.contract.js';

export interface Actor {
  /** `owner` for the holder of `API_KEY` (and Studio's own in-process clients). */
  userId: string;
  name: string;
  role: Role;
  /** A personal key's scope; null when signed in with a password, a session, or the owner's key. */
  scope: KeyScope | null;
  /** The personal key the request came with: revoking it closes the sockets it opened. */
  keyId?: string;
}

/** The holder of `API_KEY`. */
export const OWNER_ACTOR: Readonly<Actor> = Object.freeze({ userId: OWNER_ID, name: 'owner', role: 'owner', scope: null });

/** Kept by the authentication middleware for the routes. */
export function setActor(res: Response, actor: Actor): void {
  (res.locals as { actor?: Actor }).actor = actor;
}

/** The person behind the request (the owner on a route that authentication let through without one). */
export function actorOf(res: Response): Actor {
  return (res.locals as { actor?: Actor }).actor ?? OWNER_ACTOR;
}

/** Owners and admins see and touch everyone's records; the others only their own. */
export function seesEveryone(actor: Actor): boolean {
  return actor.role === 'owner' || actor.role === 'admin';
}

/** Whether a record owned by `ownerId` exists for this person (one that is not theirs answers like a missing one). */
export function mayTouch(actor: Actor, ownerId: string | null | undefined): boolean {
  return seesEveryone(actor) || (ownerId ?? OWNER_ID) === actor.userId;
}

/** Runs workflows and presets: not a viewer, not a read-only key. */
export function mayRun(actor: Actor): boolean {
  return actor.role !== 'viewer' && actor.scope !== 'read';
}

/** Changes settings, catalogs, node packages, engines and updates: owner or admin, not through a narrower key. */
export function mayAdminister(actor: Actor): boolean {
  return seesEveryone(actor) && (actor.scope === null || actor.scope === 'admin');
}

const POWER: Record<KeyScope, number> = { read: 0, run: 1, admin: 2 };
const ROLE_POWER: Record<Role, KeyScope> = { owner: 'admin', admin: 'admin', member: 'run', viewer: 'read' };

/** What a role reaches at most: viewers read, members run, owners and admins administer. */
export function roleReach(role: Role): KeyScope {
  return ROLE_POWER[role];
}

/** What this actor may do: the role's reach, narrowed by a personal key's scope. */
export function reachOf(actor: Actor): KeyScope {
  const role = ROLE_POWER[actor.role];
  return actor.scope !== null && POWER[actor.scope] < POWER[role] ? actor.scope : role;
}

/** `have` reaches at least as far as `need` (read < run < admin). */
export function reaches(have: KeyScope, need: KeyScope): boolean {
  return POWER[have] >= POWER[need];
}
