/**
 * The people of one Studio (issue 43): the owner or an admin adds, changes and disables them;
 * each person makes and revokes their own personal keys; and authentication asks it who a session
 * or a key belongs to (`People`). Disabling a person or revoking a key ends their access at once:
 * the next request is refused (asked here every time) and their open sockets are closed.
 */
import crypto from 'node:crypto';
import { DomainError, notFound } from '../domain-error.js';
import type { EventBus } from '../events/event-bus.js';
import { OWNER_ACTOR, reachOf, reaches, roleReach, type Actor } from '../http/actor.js';
import { byWhom } from '../http/audit.js';
import type { People } from '../http/people.js';
import { OWNER_ID, type Allow, type Quotas, type KeyScope, type KeyView, type MeView, type NewKeyAnswer, type QuotaUse, type NewUser, type UserPatch, type UserView, type Role } from '../contracts/users.contract.js';
import { romeIso } from '../time.js';
import { checkPassword, DECOY_HASH, hashPassword, keyHash, KEY_MARK, newPersonalKey } from './secrets.js';
import { nameKey, type KeyRow, type UserRow, type UsersStore } from './users.store.js';

/** `last_used_at` is written at most this often per key (each request would be a write). */
const TOUCH_EVERY_MS = 60_000;

export interface UsersServiceDeps {
  store: UsersStore;
  events: EventBus;
  /** Close the open sockets of the people (or keys) that match. */
  endAccess: (match: (actor: Actor) => boolean, reason: string) => void;
  /** A person's use of their quotas (the jobs capability counts it). */
  useOf: (userId: string) => QuotaUse;
  now?: () => number;
}

export class UsersService implements People {
  private readonly now: () => number;
  private readonly touched = new Map<string, number>();

  constructor(private readonly deps: UsersServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  list(): UserView[] {
    return this.deps.store.all().map(view);
  }

  async add(by: Actor, body: NewUser): Promise<UserView> {
    this.checkName(body.name);
    const now = this.now();
    const user: UserRow = {
      id: `u_${crypto.randomBytes(6).toString('hex')}`,
      name: body.name,
      role: body.role,
      passwordHash: await hashPassword(body.password),
      quotas: body.quotas ?? null,
      allow: body.allow ?? null,
      disabled: false,
      sessionsAfterMs: 0,
      createdMs: now,
    };
    // The hash took a while: a twin added meanwhile still gets its 409.
    this.checkName(body.name);
    this.deps.store.save(user, now);
    this.deps.events.emit('users.added', 'info', `${by.name} added ${user.name} (${user.role})`, { ...byWhom(by), target_id: user.id, target_name: user.name, role: user.role });
    return view(user);
  }

  async change(by: Actor, id: string, patch: UserPatch): Promise<UserView> {
    this.person(id);
    if (patch.disabled === true && id === by.userId) throw new DomainError('conflict', 'You cannot disable yourself');
    // The slow hash first: what is checked and saved below is then read in one go, with no wait between.
    const passwordHash = patch.password === undefined ? null : await hashPassword(patch.password);
    const current = this.person(id);
    if (patch.name !== undefined && nameKey(patch.name) !== nameKey(current.name)) this.checkName(patch.name);
    const next: UserRow = {
      ...current,
      name: patch.name ?? current.name,
      role: patch.role ?? current.role,
      quotas: patch.quotas === undefined ? current.quotas : patch.quotas,
      allow: patch.allow === undefined ? current.allow : patch.allow,
      disabled: patch.disabled ?? current.disabled,
      passwordHash: passwordHash ?? current.passwordHash,
    };
    // A new password or being disabled ends every session signed in before now.
    const disabledNow = next.disabled && !current.disabled;
    const ended = passwordHash !== null || disabledNow;
    if (ended) next.sessionsAfterMs = this.now();
    const fields = Object.keys(patch);
    this.deps.store.save(next, this.now());
    if (ended || next.role !== current.role) this.deps.endAccess((a) => a.userId === id, ended ? 'Your access ended: sign in again' : 'Your role changed');
    this.deps.events.emit(disabledNow ? 'users.disabled' : 'users.changed', disabledNow ? 'warning' : 'info', `${by.name} ${disabledNow ? 'disabled' : 'changed'} ${next.name} (${fields.join(', ')})`, {
      ...byWhom(by),
      target_id: id,
      target_name: next.name,
      fields,
    });
    return view(next);
  }

  /** Disable (records kept): sessions end, keys stop working, sockets close. */
  disable(by: Actor, id: string): Promise<UserView> {
    return this.change(by, id, { disabled: true });
  }

  me(actor: Actor): MeView {
    const user = actor.userId === OWNER_ID ? undefined : this.deps.store.byId(actor.userId);
    return { id: actor.userId, name: actor.name, role: actor.role, scope: actor.scope, quotas: user?.quotas ?? null, allow: user?.allow ?? null, use: this.deps.useOf(actor.userId) };
  }

  /** A person's stored quotas and allow-lists, for the runner (null: no such person; the owner has none). */
  limitsOf(userId: string): { quotas: Quotas | null; allow: Allow | null } | null {
    const user = this.deps.store.byId(userId);
    return user ? { quotas: user.quotas, allow: user.allow } : null;
  }

  /** A person's role now; null for someone unknown or disabled (the owner is always `owner`). */
  roleOf(userId: string): Role | null {
    if (userId === OWNER_ID) return 'owner';
    const user = this.deps.store.byId(userId);
    return user && !user.disabled ? user.role : null;
  }

  /** A personal key for `actor`, at most as far as they reach now (a `read` key makes `read` keys). */
  makeKey(actor: Actor, body: { name: string; scope: KeyScope }): NewKeyAnswer {
    if (!reaches(reachOf(actor), body.scope)) throw new DomainError('forbidden', `A ${body.scope} key is past what you may do (${reachOf(actor)})`);
    const { key, hash, prefix } = newPersonalKey();
    const row: KeyRow & { hash: string } = { id: `k_${crypto.randomBytes(6).toString('hex')}`, userId: actor.userId, name: body.name, scope: body.scope, prefix, hash, createdMs: this.now(), lastUsedMs: null };
    this.deps.store.addKey(row);
    this.deps.events.emit('users.key.created', 'info', `${actor.name} made the ${body.scope} key "${body.name}" (${prefix}…)`, { ...byWhom(actor), key_id: row.id, key_name: body.name, scope: body.scope, prefix });
    return { id: row.id, key, name: body.name, scope: body.scope, prefix };
  }

  keys(actor: Actor): KeyView[] {
    return this.deps.store.keysOf(actor.userId).map((k) => ({ id: k.id, name: k.name, scope: k.scope, prefix: k.prefix, created_at: romeIso(new Date(k.createdMs)), last_used_at: k.lastUsedMs === null ? null : romeIso(new Date(k.lastUsedMs)) }));
  }

  /** Revoke one of one's own keys: refused from the next request on, its sockets closed now. */
  revokeKey(actor: Actor, keyId: string): void {
    if (!this.deps.store.revokeKey(actor.userId, keyId, this.now())) throw notFound(`No key ${keyId}`);
    this.deps.endAccess((a) => a.keyId === keyId, 'This key was revoked');
    this.deps.events.emit('users.key.revoked', 'info', `${actor.name} revoked a key`, { ...byWhom(actor), key_id: keyId });
  }

  sessionActor(userId: string, issuedAtMs: number): Actor | null {
    const user = this.deps.store.byId(userId);
    if (!user || user.disabled || issuedAtMs < user.sessionsAfterMs) return null;
    return { userId: user.id, name: user.name, role: user.role, scope: null };
  }

  keyActor(candidate: string): Actor | null {
    if (!candidate.startsWith(KEY_MARK)) return null;
    const key = this.deps.store.keyByHash(keyHash(candidate));
    if (!key) return null;
    const actor = this.actorOfKey(key);
    if (actor) this.touch(key.id);
    return actor;
  }

  boundActor(userId: string, keyId: string): Actor | null {
    const key = this.deps.store.keyById(keyId);
    return key && key.userId === userId ? this.actorOfKey(key) : null;
  }

  /** Who a key in force acts as: null once its person is disabled. */
  private actorOfKey(key: KeyRow): Actor | null {
    let base: Actor;
    if (key.userId === OWNER_ID) base = OWNER_ACTOR;
    else {
      const user = this.deps.store.byId(key.userId);
      if (!user || user.disabled) return null;
      base = { userId: user.id, name: user.name, role: user.role, scope: null };
    }
    // A key never reaches past its person's role, even one made before the role was lowered.
    const scope = reaches(roleReach(base.role), key.scope) ? key.scope : roleReach(base.role);
    return { ...base, scope, keyId: key.id };
  }

  async signIn(name: string, password: string): Promise<Actor | null> {
    const user = this.deps.store.byName(name);
    // Same work for a name nobody has: the answer's time tells nothing.
    const ok = await checkPassword(password, user?.passwordHash ?? DECOY_HASH);
    if (!user || !ok || user.disabled) return null;
    return { userId: user.id, name: user.name, role: user.role, scope: null };
  }

  private touch(keyId: string): void {
    const now = this.now();
    if (now - (this.touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(keyId, now);
    this.deps.store.touchKey(keyId, now);
  }

  private person(id: string): UserRow {
    if (id === OWNER_ID) throw new DomainError('forbidden', 'The owner is the holder of API_KEY and cannot be changed or disabled here');
    const user = this.deps.store.byId(id);
    if (!user) throw notFound(`No person ${id}`);
    return user;
  }

  private checkName(name: string): void {
    if (nameKey(name) === OWNER_ID) throw new DomainError('conflict', 'The name "owner" is the holder of API_KEY');
    if (this.deps.store.byName(name)) throw new DomainError('conflict', `A person named "${name.trim()}" exists already`);
  }
}

function view(user: UserRow): UserView {
  return { id: user.id, name: user.name, role: user.role, quotas: user.quotas, allow: user.allow, disabled: user.disabled, created_at: romeIso(new Date(user.createdMs)) };
}
