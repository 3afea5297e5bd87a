/**
 * Prompt history, in memory like the engine's (lost on restart, capped at 10 000 entries, oldest
 * dropped first). A reused prompt id overwrites its entry in place.
 */
import type { HistoryEntry } from './standin.types.js';

const MAX_HISTORY = 10_000;

export class HistoryStore {
  private readonly entries = new Map<string, HistoryEntry>();

  set(promptId: string, entry: HistoryEntry): void {
    this.entries.set(promptId, entry);
    if (this.entries.size > MAX_HISTORY) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /** `GET /history/{id}` body: `{id: entry}` or `{}`. */
  one(promptId: string): Record<string, HistoryEntry> {
    const entry = this.entries.get(promptId);
    return entry ? { [promptId]: entry } : {};
  }

  /**
   * `GET /history?max_items=&offset=`: oldest first from `offset`; with `max_items` and no offset,
   * the newest `max_items` (the engine computes offset = size - max_items). Pairs, so the caller can
   * keep insertion order in JSON even for integer-like ids.
   */
  list(maxItems: number | null, offset: number | null): Array<[string, HistoryEntry]> {
    let start = offset ?? -1;
    if (start < 0 && maxItems !== null) start = this.entries.size - maxItems;
    const from = Math.max(start, 0);
    // The engine checks the count after adding an entry, so `max_items=0` still gives one.
    return [...this.entries].slice(from, maxItems === null ? undefined : from + Math.max(maxItems, 1));
  }

  delete(promptId: string): void {
    this.entries.delete(promptId);
  }

  clear(): void {
    this.entries.clear();
  }
}
