/**
 * The event log: the last events from the server, filtered by type and severity, with new ones
 * appended live from the socket when they pass the filter.
 */
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref } from 'vue';
import { useClient } from '../api/context.js';
import type { Severity, StudioEvent } from '../api/types.js';

export interface EventFilter {
  types: string[];
  severities: Severity[];
  /** One person's events (their id in `data.user_id`); empty: everyone's. */
  user?: string;
}

/** Whether an event passes the filter; an empty list means "all". */
export function matchesEventFilter(event: StudioEvent, filter: EventFilter): boolean {
  if (filter.types.length && !filter.types.includes(event.type)) return false;
  if (filter.severities.length && !filter.severities.includes(event.severity)) return false;
  if (filter.user && event.data.user_id !== filter.user) return false;
  return true;
}

/** Event types grouped by their first segment (`job.*`, `engine.*`) for the filter menu. */
export function typeGroups(types: Iterable<string>): Array<{ group: string; types: string[] }> {
  const groups = new Map<string, Set<string>>();
  for (const type of types) {
    const group = type.split('.')[0] ?? type;
    let set = groups.get(group);
    if (!set) groups.set(group, (set = new Set()));
    set.add(type);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([group, set]) => ({ group, types: [...set].sort() }));
}

export const useEventsStore = defineStore('events', () => {
  const { api, socket } = useClient();
  const events = ref<StudioEvent[]>([]);
  const filter = ref<EventFilter>({ types: [], severities: [] });
  const limit = ref(200);
  const loading = ref(false);
  const error = ref<string | null>(null);
  /** Every type seen, so the filter can offer types not on screen right now. */
  const knownTypes = ref<string[]>([]);

  function remember(list: readonly StudioEvent[]): void {
    const set = new Set(knownTypes.value);
    let changed = false;
    for (const e of list) {
      if (!set.has(e.type)) {
        set.add(e.type);
        changed = true;
      }
    }
    if (changed) knownTypes.value = [...set].sort();
  }

  const off = socket.on('event', (event) => {
    remember([event]);
    if (!matchesEventFilter(event, filter.value)) return;
    if (events.value.some((e) => e.id === event.id)) return;
    events.value = [...events.value, event].slice(-limit.value);
  });
  onScopeDispose(off);

  /** Fetch with the current filter (the server filters too, so the page holds `limit` matches). */
  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      const list = await api.events({ limit: limit.value, types: filter.value.types, severity: filter.value.severities, user: filter.value.user || undefined });
      events.value = list;
      remember(list);
      error.value = null;
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    } finally {
      loading.value = false;
    }
  }

  /** Change the filter and refetch. */
  async function setFilter(next: Partial<EventFilter>): Promise<void> {
    filter.value = { ...filter.value, ...next };
    await refresh();
  }

  const newestFirst = computed(() => [...events.value].reverse());

  return { events, newestFirst, filter, limit, loading, error, knownTypes, refresh, setFilter };
});
