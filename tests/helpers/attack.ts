/**
 * The attack of issue 43 through Studio's real front door: people added by the owner, signed in by
 * name and password (session cookies) and holding personal keys, every request through the real
 * authenticator and route policy. Member B's answer for each of A's ids must be exactly B's answer
 * for an id that never existed (same status, same body once the id itself is set aside).
 */
import { expect } from 'vitest';
import type { KeyScope } from '../../server/contracts/users.contract.js';
import { addPerson, as, makeKey, signIn, type Person } from './people.js';
import type { TestStudio } from './studio.js';

export type Auth = { cookie: string } | { key: string };

/** A person with their session cookie and a personal key of the widest scope their role allows. */
export interface SignedIn extends Person {
  cookie: { cookie: string };
  key: { key: string; id: string };
}

/** Add a person and sign them in both ways. */
export async function signedIn(t: TestStudio, name: string, role: 'member' | 'viewer' | 'admin', extra: Record<string, unknown> = {}): Promise<SignedIn> {
  const person = await addPerson(t, name, role, extra);
  const cookie = await signIn(t, person);
  const scope: KeyScope = role === 'viewer' ? 'read' : role === 'member' ? 'run' : 'admin';
  const made = await makeKey(t, cookie, scope);
  return { ...person, cookie: { cookie }, key: { key: made.key, id: made.id } };
}

/** A route family that names one record. */
export interface AttackRoute {
  name: string;
  path: (id: string) => string;
  init?: (id: string) => RequestInit;
}

/** Status and body, with the asked id replaced, so the answers for two ids compare. */
export async function answer(res: Response, id: string): Promise<string> {
  return `${res.status} ${(await res.text()).split(id).join('<id>')}`;
}

/**
 * For every route and every id of `theirs`: `attacker`'s answer equals their answer for a fresh id
 * nobody has (`fresh` makes one like the given id). The attacker's cookie and key take turns, so both doors are tried on every family.
 * `nameOf` is the part of an id an answer may echo (a folder of a file path, say).
 */
export async function expectAsMissing(
  t: TestStudio,
  attacker: SignedIn,
  theirs: readonly string[],
  fresh: (theirs: string) => string,
  routes: readonly AttackRoute[],
  nameOf: (id: string) => string = (id) => id,
): Promise<void> {
  for (const route of routes) {
    for (const [i, id] of theirs.entries()) {
      const auth: Auth = i % 2 === 0 ? attacker.cookie : { key: attacker.key.key };
      const missing = fresh(id);
      const got = await answer(await as(t, auth, route.path(id), route.init?.(id)), nameOf(id));
      const none = await answer(await as(t, auth, route.path(missing), route.init?.(missing)), nameOf(missing));
      expect(got, `${route.name} ${id}`).toBe(none);
    }
  }
}
