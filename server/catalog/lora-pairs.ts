/**
 * LoRAs compatible with a base model, grouped by `pair_id` (spec: GET
 * /api/admin/loras/compatible/{base_model}). Two-stage video models (WAN 2.2 A14B) run a high-noise
 * and a low-noise model, so a LoRA often ships as a high/low pair; `both` covers every stage.
 *
 * Base models are matched loosely because the same family is spelled many ways
 * ("Wan Video 2.2 I2V-A14B", "wan 2.2", "WAN2.2 i2v"): both names are split into lower-case
 * tokens (letters and numbers apart, dots kept only inside numbers, filler words like "video"
 * dropped) and they match when one token set contains the other. So "wan 2.2" matches every
 * WAN 2.2 variant, "Wan 2.2 I2V" matches "Wan Video 2.2 I2V-A14B" but not "... T2V-A14B" or
 * "Wan 2.1", and "SD 1.5" equals "SD1.5".
 */
import type { CatalogEntry, CatalogFile, LoraPair, PairRole } from '../contracts/catalog.contract.js';

const FILLER_TOKENS = new Set(['video', 'model', 'base']);

/** Lower-case comparison tokens of a base model name (exported for tests and other matchers). */
function baseModelTokens(baseModel: string): Set<string> {
  const spaced = baseModel
    .toLowerCase()
    // A dot is a separator unless it sits between two digits ("flux.1" -> "flux 1", "2.2" stays).
    .replace(/\.(?!\d)|(?<!\d)\./g, ' ')
    .replace(/([a-z])(\d)/g, '$1 $2')
    .replace(/(\d)([a-z])/g, '$1 $2');
  const tokens = spaced.split(/[^a-z0-9.]+/).filter((token) => token.length > 0 && !FILLER_TOKENS.has(token));
  return new Set(tokens);
}

/** Whether two base model names denote compatible models (see the file comment for the rule). */
export function baseModelsMatch(a: string, b: string): boolean {
  const ta = baseModelTokens(a);
  const tb = baseModelTokens(b);
  if (ta.size === 0 || tb.size === 0) return false;
  const within = (small: Set<string>, big: Set<string>) => [...small].every((token) => big.has(token));
  return within(ta, tb) || within(tb, ta);
}

// \u2013 is the en dash.
const SUFFIXES = [
  /(?:^|[\s_\-\u2013([]+)(?:high|low)[\s_-]*noise[\s)\]]*$/i,
  /[\s_\-\u2013([]+(?:high|low)[\s)\]]*$/i,
  /[\s_\-\u2013([]+(?:HN|LN)[\s)\]]*$/,
];

/** A LoRA name without a trailing noise-level marker ("High Noise", "(low)", "HN", "LN"). */
export function stripNoiseSuffix(name: string): string {
  let out = name.trim();
  for (const suffix of SUFFIXES) out = out.replace(suffix, '');
  out = out.replace(/[\s_\-\u2013]+$/, '').trim();
  return out.length > 0 ? out : name.trim();
}

/**
 * LoRAs of `lorasCatalog` whose base model matches `baseModel`, one row per `pair_id` in catalog
 * order. An entry without `pair_id` is its own group (keyed by its file); one without `pair_role`
 * counts as `both`. When two entries claim the same role in a group the first one wins.
 */
export function compatibleLoras(lorasCatalog: CatalogFile, baseModel: string): LoraPair[] {
  const groups = new Map<string, { pair: LoraPair; names: Partial<Record<PairRole, string>> }>();
  for (const category of lorasCatalog.categories) {
    for (const entry of category.models) {
      if (!entry.base_model || !baseModelsMatch(entry.base_model, baseModel)) continue;
      addToGroup(groups, entry);
    }
  }
  return [...groups.values()].map(({ pair, names }) => ({
    ...pair,
    name: stripNoiseSuffix(names.both ?? names.high ?? names.low ?? pair.pair_id),
  }));
}

function addToGroup(
  groups: Map<string, { pair: LoraPair; names: Partial<Record<PairRole, string>> }>,
  entry: CatalogEntry,
): void {
  const pairId = entry.pair_id ?? entry.file;
  const role: PairRole = entry.pair_role ?? 'both';
  let group = groups.get(pairId);
  if (!group) {
    group = { pair: { pair_id: pairId, name: '', high: null, low: null, both: null }, names: {} };
    groups.set(pairId, group);
  }
  if (group.pair[role] !== null) return;
  group.pair[role] = entry.file;
  group.names[role] = entry.name;
}
