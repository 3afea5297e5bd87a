/**
 * What the settings page says about each environment variable (spec "Environment variable
 * entry"), drawn from the one declaration table (`config/env-vars.ts`), plus the facts of this
 * installation the read-only group shows beside the variables. Values come from the config's
 * snapshot of the environment and, for the editable ones, from the live secrets.
 */
import { ENV_GROUPS, ENV_KEYS, ENV_VARS, PLATFORM_GROUP, type EnvGroupId } from '../config/env-vars.js';

export { PLATFORM_GROUP };

export interface EnvVarInfo {
  key: string;
  default: string | null;
  description: string;
  sensitive?: boolean;
  editable?: boolean;
}

export interface EnvGroupInfo {
  id: string;
  label: string;
  vars: EnvVarInfo[];
}

/** Names treated as secrets wherever they appear (the hosting platform's too). */
export const SECRET_NAME = /(^|_)(API_KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)/i;

/** Shown in the read-only group though no variable sets them. */
const INSTALLATION_FACTS: Partial<Record<EnvGroupId, EnvVarInfo[]>> = {
  readonly: [{ key: 'STUDIO_VERSION', default: null, description: 'Version of the running Studio' }],
};

/** The declared groups with their entries, in the settings page's order. */
export const ENV_GROUP_INFO: readonly EnvGroupInfo[] = ENV_GROUPS.map((group) => ({
  id: group.id,
  label: group.label,
  vars: [
    ...ENV_KEYS.filter((key) => ENV_VARS[key].group === group.id).map((key) => {
      const spec: { default: string | null; description: string; sensitive?: boolean; editable?: boolean } = ENV_VARS[key];
      return { key, default: spec.default, description: spec.description, sensitive: spec.sensitive, editable: spec.editable };
    }),
    ...(INSTALLATION_FACTS[group.id] ?? []),
  ],
}));
