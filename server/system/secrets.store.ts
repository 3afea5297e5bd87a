/**
 * The variables set at runtime, live: services read them through `get()` on every use. The spec's
 * five (`API_KEY`, `MODELHUB_API_KEY`, `HUB_TOKEN`, `CHATBOT_BOT_TOKEN`, `CHATBOT_BOT_NAME`, marked
 * `editable` in `config/env-vars.ts`) through the environment route; `REPO_URL` only through the
 * update repository route of its own,
 * so a change applies at once. A value set in the UI is stored in the `settings` table (the
 * database file is 0600 in a 0700 folder) and wins over the environment on later boots.
 */
import { ENV_KEYS, ENV_VARS, type EditableVar } from '../config/env-vars.js';
import type { SettingsStore } from '../db/settings.store.js';


export const EDITABLE_VARS: readonly EditableVar[] = ENV_KEYS.filter((key): key is EditableVar => (ENV_VARS[key] as { editable?: boolean }).editable === true);

/** What Studio stores at runtime: the editable variables and the update repository. */
export type StoredVar = EditableVar | 'REPO_URL';
const STORED_VARS: readonly StoredVar[] = [...EDITABLE_VARS, 'REPO_URL'];

/** Where a stored variable's value in force comes from. */
export type ValueSource = 'settings' | 'environment' | null;

/** Whether `name` is one of the editable variables. */
export function isEditableVar(name: string): name is EditableVar {
  return (EDITABLE_VARS as readonly string[]).includes(name);
}

const ROW_PREFIX = 'env:';

/** The editable variables in force: the environment's values overlaid with the stored ones. */
export class Secrets {
  private readonly values = new Map<StoredVar, string | null>();
  private readonly setHere = new Set<StoredVar>();

  constructor(
    private readonly store: SettingsStore,
    fromEnvironment: Readonly<Record<StoredVar, string | null>>,
  ) {
    for (const name of STORED_VARS) {
      const stored = store.get(ROW_PREFIX + name);
      if (stored !== null) this.setHere.add(name);
      // An empty stored value is a deliberate "unset" that must survive a restart too.
      this.values.set(name, stored === null ? fromEnvironment[name] : stored || null);
    }
  }

  /** The value in force, or null when unset. */
  get(name: StoredVar): string | null {
    return this.values.get(name) ?? null;
  }

  /** Whether the value in force was set in Studio (and wins over the environment) or comes from it. */
  source(name: StoredVar): ValueSource {
    if (this.setHere.has(name) && this.get(name) !== null) return 'settings';
    return this.get(name) === null ? null : 'environment';
  }

  /** The API key in force (never null: the environment always provides one). */
  apiKey(): string {
    return this.get('API_KEY') ?? '';
  }

  /** Store and apply a value; an empty string unsets the variable. */
  set(name: StoredVar, value: string): void {
    this.store.set(ROW_PREFIX + name, value);
    this.setHere.add(name);
    this.values.set(name, value || null);
  }
}
