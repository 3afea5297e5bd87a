/**
 * Who is signed in (their role decides the navigation), their personal keys, and — for owners
 * and admins — the people of this Studio.
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import { UsersApi, type KeyScope, type KeyView, type MeView, type NewKeyAnswer, type UserDraft, type UserView } from '../api/users-api.js';

/** The key scopes a role may make (never past the role, nor past the key in use). */
export function scopesFor(me: Pick<MeView, 'role' | 'scope'> | null): KeyScope[] {
  if (!me) return [];
  const all: KeyScope[] = ['read', 'run', 'admin'];
  const roleReach = me.role === 'viewer' ? 0 : me.role === 'member' ? 1 : 2;
  const reach = me.scope ? Math.min(roleReach, all.indexOf(me.scope)) : roleReach;
  return all.slice(0, reach + 1);
}

/** Quotas in words for a table cell: "5/h · 20/day · 2 waiting · 3600 GPU-s/day", or "no limit". */
export function quotaText(quotas: UserView['quotas']): string {
  if (!quotas) return 'no limit';
  const parts = [
    quotas.jobs_per_hour != null ? `${quotas.jobs_per_hour}/h` : null,
    quotas.jobs_per_day != null ? `${quotas.jobs_per_day}/day` : null,
    quotas.waiting != null ? `${quotas.waiting} waiting` : null,
    quotas.gpu_seconds_per_day != null ? `${quotas.gpu_seconds_per_day} GPU-s/day` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'no limit';
}

/** One's use beside one's quotas: "2 of 3 jobs this hour · 40 of 3600 GPU-s today"; null with no quota. */
export function quotaUseText(me: Pick<MeView, 'quotas' | 'use'> | null): string | null {
  const q = me?.quotas;
  if (!me || !q) return null;
  const parts = [
    q.jobs_per_hour != null ? `${me.use.jobs_this_hour} of ${q.jobs_per_hour} jobs this hour` : null,
    q.jobs_per_day != null ? `${me.use.jobs_today} of ${q.jobs_per_day} jobs today` : null,
    q.waiting != null ? `${me.use.waiting} of ${q.waiting} waiting` : null,
    q.gpu_seconds_per_day != null ? `${me.use.gpu_seconds_today} of ${q.gpu_seconds_per_day} GPU-seconds today` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : null;
}

export const useUsersStore = defineStore('users', () => {
  const api = new UsersApi(useClient().api.http);
  const me = ref<MeView | null>(null);
  const people = ref<UserView[]>([]);
  const keys = ref<KeyView[]>([]);
  /** The key just made: shown once, gone when the page is left. */
  const fresh = ref<NewKeyAnswer | null>(null);
  const error = ref<string | null>(null);

  /** Owners and admins see the admin pages (the server refuses the others anyway). */
  const isAdmin = computed(() => me.value === null || me.value.role === 'owner' || me.value.role === 'admin');

  async function loadMe(): Promise<void> {
    me.value = await api.me();
  }
  async function refreshPeople(): Promise<void> {
    try {
      people.value = (await api.list()).users;
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }
  async function refreshKeys(): Promise<void> {
    try {
      keys.value = (await api.keys()).keys;
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    }
  }
  /**
   * A record's owner by name (the wire carries the id): the people list is asked once, by owners
   * and admins, the only ones shown others' records; an unknown id stays as it is.
   */
  let peopleAsked = false;
  function ownerName(id: string | null | undefined): string {
    if (!id || id === 'owner') return 'owner';
    if (!peopleAsked && isAdmin.value) {
      peopleAsked = true;
      void refreshPeople();
    }
    return people.value.find((p) => p.id === id)?.name ?? id;
  }
  async function add(draft: UserDraft): Promise<UserView> {
    const added = await api.add(draft);
    await refreshPeople();
    return added;
  }
  async function change(id: string, draft: UserDraft): Promise<UserView> {
    const changed = await api.change(id, draft);
    await refreshPeople();
    return changed;
  }
  async function disable(id: string): Promise<void> {
    await api.disable(id);
    await refreshPeople();
  }
  async function makeKey(name: string, scope: KeyScope): Promise<NewKeyAnswer> {
    fresh.value = await api.makeKey(name, scope);
    await refreshKeys();
    return fresh.value;
  }
  async function revokeKey(id: string): Promise<void> {
    await api.revokeKey(id);
    if (fresh.value?.id === id) fresh.value = null;
    await refreshKeys();
  }

  return { me, people, keys, fresh, error, isAdmin, ownerName, loadMe, refreshPeople, refreshKeys, add, change, disable, makeKey, revokeKey };
});
