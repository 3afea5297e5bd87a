/**
 * Reads the environment through the declared table: each variable's value (parsed, default
 * applied), which ones were set, and the snapshot the settings page shows.
 */
import { ENV_KEYS, ENV_VARS, PLATFORM_GROUP, type EnvKey, type EnvValues } from './env-vars.js';

/** The declared variables read from `env`: values, and which of them were set (not defaulted). */
export interface EnvReading {
  values: EnvValues;
  given: ReadonlySet<EnvKey>;
}

/** Parse every declared variable; throws `ConfigError` on the first bad value. */
export function readEnv(env: NodeJS.ProcessEnv): EnvReading {
  const values: Record<string, unknown> = {};
  const given = new Set<EnvKey>();
  for (const key of ENV_KEYS) {
    const spec: { default: string | null; parse: (raw: string, key: string) => unknown } = ENV_VARS[key];
    const raw = nonEmpty(env[key]);
    if (raw !== undefined) given.add(key);
    const textValue = raw ?? spec.default;
    values[key] = textValue === null ? null : spec.parse(textValue, key);
  }
  return { values: values as EnvValues, given };
}

/** The declared variables that are set, plus the hosting platform's: what the settings page may show (secrets included: never logged). */
export function reportedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const trimmed = nonEmpty(value);
    if (trimmed === undefined) continue;
    if (Object.hasOwn(ENV_VARS, name) || name.startsWith(PLATFORM_GROUP.prefix)) out[name] = trimmed;
  }
  return out;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
