/**
 * The variables editable at runtime (spec: `API_KEY`, `MODELHUB_API_KEY`, `HUB_TOKEN`,
 * `CHATBOT_BOT_TOKEN`, `CHATBOT_BOT_NAME`, and `REPO_URL` beyond the spec; marked `editable` in `config/env-vars.ts`), live: services read them through `get()` on every use,
 * so a change applies at once. A value set in the UI is stored in the `settings` table (the
 * database file is 0600 in a 0700 folder) and wins over the environment on later boots.
 */
import { ENV_KEYS, ENV_VARS, type EditableVar } from '../config/env-vars.js';
import type { SettingsStore } from '../db/settings.store.js';


export const EDITABLE_VARS: readonly EditableVar[] = ENV_KEYS.filter((key): key is EditableVar => (ENV_VARS[key] as { editable?: boolean }).editable === true);

/** Whether `name` is one of the editable variables. */
export function isEditableVar(name: string): name is EditableVar {
  return (EDITABLE_VARS as readonly string[]).includes(name);
}

const ROW_PREFIX = 'env:';

/** The editable variables in force: the environment's values overlaid with the stored ones. */
export class Secrets {
  private readonly values = new Map<EditableVar, string | null>();

  constructor(
    private readonly store: SettingsStore,
    fromEnvironment: Readonly<Record<EditableVar, string | null>>,
  ) {
    for (const name of EDITABLE_VARS) {
      const stored = store.get(ROW_PREFIX + name);
      // An empty stored value is a deliberate "unset" that must survive a restart too.
      this.values.set(name, stored === null ? fromEnvironment[name] : stored || null);
    }
  }

  /** The value in force, or null when unset. */
  get(name: EditableVar): string | null {
    return this.values.get(name) ?? null;
  }

  /** The API key in force (never null: the environment always provides one). */
  apiKey(): string {
    return this.get('API_KEY') ?? '';
  }

  /** Store and apply a value; an empty string unsets the variable. */
  set(name: EditableVar, value: string): void {
    this.store.set(ROW_PREFIX + name, value);
    this.values.set(name, value || null);
  }
}
