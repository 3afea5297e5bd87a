/**
 * What a metadata fetch changes in a catalog entry, computed from the model hub's or the
 * repository host's record. Pure functions, so the rules are easy to test:
 * - model hub: name (`<Model> <Version> [<BaseModel> <FP>]`, the catalog-add rule), base model,
 *   trained words, model id, tags merged in, the hub's timestamps;
 * - repository host: tags merged in, base model only when the entry has none (a repository's
 *   `base_model` is a repo id such as `Qwen/Qwen2.5-7B`, not the family name LoRA matching
 *   relies on), gating, timestamps. The display name is kept: a repo id is not a better name.
 */
import type { ModelhubFile, ModelhubModel, ModelhubVersion } from '../modelhub-client/modelhub.client.js';
import type { RepohostRepo } from '../repohost/repohost.client.js';
import type { CatalogEntry } from '../contracts/catalog.contract.js';

/** Fields to assign onto an entry. */
export type EntryPatch = Partial<CatalogEntry> & Record<string, unknown>;

const MAX_TAGS = 24;

/** The patch for an entry from its model hub version (and model, when it could be fetched). */
export function modelhubPatch(entry: CatalogEntry, version: ModelhubVersion, model: ModelhubModel | null, fetchedAt: string): EntryPatch {
  const file = pickFile(version.files ?? [], entry.file);
  const patch: EntryPatch = {
    trained_words: version.trainedWords ?? [],
    tags: mergeTags(entry.tags, model?.tags ?? []),
    metadata_fetched_at: fetchedAt,
  };
  const modelName = version.model?.name ?? model?.name;
  if (modelName) {
    const bracket = [version.baseModel, file?.metadata?.fp].filter((part): part is string => Boolean(part)).join(' ');
    patch.name = `${modelName} ${version.name}${bracket ? ` [${bracket}]` : ''}`.trim();
  }
  if (version.baseModel) patch.base_model = version.baseModel;
  if (version.modelId !== undefined) patch.modelhub_model_id = version.modelId;
  if (version.createdAt) patch.modelhub_created_at = version.createdAt;
  const updated = version.updatedAt ?? version.publishedAt;
  if (updated) patch.modelhub_updated_at = updated;
  return patch;
}

/** The patch for an entry from its repository's record. */
export function repohostPatch(entry: CatalogEntry, repo: RepohostRepo, fetchedAt: string): EntryPatch {
  const cardTags = listOf(repo.cardData?.tags);
  const extra = [...cardTags, ...(repo.pipeline_tag ? [repo.pipeline_tag] : [])];
  const patch: EntryPatch = {
    tags: mergeTags(entry.tags, extra),
    gated: repo.gated !== undefined && repo.gated !== null && repo.gated !== false,
    metadata_fetched_at: fetchedAt,
  };
  const baseModel = listOf(repo.cardData?.base_model)[0];
  if (!entry.base_model && baseModel) patch.base_model = baseModel;
  if (repo.createdAt) patch.repohost_created_at = repo.createdAt;
  if (repo.lastModified) patch.repohost_updated_at = repo.lastModified;
  if (repo.sha) patch.repohost_revision = repo.sha;
  const license = listOf(repo.cardData?.license)[0];
  if (license) patch.license = license;
  return patch;
}

/** The version file matching the catalog's file name, else the primary one, else the first. */
export function pickFile(files: readonly ModelhubFile[], name: string): ModelhubFile | undefined {
  return files.find((file) => file.name === name) ?? files.find((file) => file.primary) ?? files[0];
}

/** Existing tags first, then new ones (lower-case, no `key:value` tags, no duplicates), bounded. */
export function mergeTags(existing: readonly string[], incoming: readonly string[]): string[] {
  const out = [...existing];
  const seen = new Set(existing.map((tag) => tag.toLowerCase()));
  for (const raw of incoming) {
    const tag = raw.trim().toLowerCase();
    if (!tag || tag.includes(':') || seen.has(tag)) continue;
    if (out.length >= MAX_TAGS) break;
    seen.add(tag);
    out.push(tag);
  }
  return out;
}

function listOf(value: string | string[] | null | undefined): string[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
