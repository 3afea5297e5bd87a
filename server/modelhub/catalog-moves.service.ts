/**
 * Catalog moves from the model hub (spec "Catalog moves", "Catalog-add rules", promote table):
 * `add/{version_id}` puts a hub version into `models.json` without downloading it, and
 * `promote-to-lora/{version_id}` moves a LoRA entry from `models.json` into `loras.json`, both
 * files saved as one change. Downloads of such entries go through the hub's download URL like any
 * other modelhub entry (`catalog/source-urls.ts`).
 */
import { catalogEntries, type CatalogEntry, type CatalogFile } from '../contracts/catalog.contract.js';
import type { CatalogStore } from '../catalog/catalog.store.js';
import { DomainError } from '../domain-error.js';
import { CATEGORY_NAMES, displayName, loraCategoryFor, mainFile, placementFor, restriction } from './catalog-rules.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import { viaHub } from './modelhub-errors.js';

/** `add` answers. */
export type AddResult =
  | { status: 'added'; file: string; name: string; category: string; dest: string }
  | { status: 'exists'; file: string; name: string; category: string; dest: string; catalog: 'models' | 'loras' }
  | { status: 'restricted'; reason: string };

/** `promote-to-lora` answers. */
export interface PromoteResult {
  status: 'promoted' | 'already_in_loras';
  file: string;
  name: string;
  category: string;
  dest: string;
}

export interface CatalogMovesDeps {
  client: ModelhubClient;
  catalogs: { models: CatalogStore; loras: CatalogStore };
}

/** Adds hub versions to the models catalog and promotes LoRAs into the LoRA catalog. */
export class CatalogMoves {
  constructor(private readonly deps: CatalogMovesDeps) {}

  /** `POST /api/admin/modelhub/add/{version_id}`. */
  async add(versionId: number): Promise<AddResult> {
    const id = String(versionId);
    const known = this.findVersion(id);
    if (known) return { status: 'exists', ...describe(known.hit), catalog: known.catalog };

    const version = await viaHub(() => this.deps.client.getModelVersion(id));
    const reason = restriction(version);
    if (reason) return { status: 'restricted', reason };
    const hubType = version.model?.type ?? '';
    const placement = placementFor(hubType, version.baseModel);
    if (!placement) throw new DomainError('invalid', `Model hub type "${hubType || 'unknown'}" has no place in the models catalog (checkpoints, LoRAs, VAE, embeddings, ControlNet and upscalers do)`);
    const file = mainFile(version.files ?? []);
    if (!file) throw new DomainError('invalid', 'The model hub lists no file for this version');
    const sha = file.hashes?.SHA256 ?? Object.entries(file.hashes ?? {}).find(([k]) => k.toLowerCase() === 'sha256')?.[1];
    const entry: CatalogEntry = {
      name: displayName(version, file),
      file: file.name,
      dest: placement.dest,
      size_gb: file.sizeKB === undefined ? 0 : Math.round((file.sizeKB * 1024) / 1e6) / 1000,
      ...(version.baseModel ? { base_model: version.baseModel } : {}),
      tags: ['modelhub'],
      source: 'modelhub',
      modelhub_version_id: id,
      // The hub's download URL without `fileId` serves the version's primary file, which may not
      // be the file chosen here (and whose hash the entry holds).
      ...(file.id !== undefined && !file.primary ? { modelhub_file_id: String(file.id) } : {}),
      ...(version.modelId !== undefined ? { modelhub_model_id: version.modelId } : {}),
      ...(sha && /^[0-9a-fA-F]{64}$/.test(sha) ? { sha256: sha.toLowerCase() } : {}),
      trained_words: version.trainedWords ?? [],
    };

    return this.deps.catalogs.models.update((models) => {
      // Checked again inside the write queue: another add of the same version may have won.
      const again = this.findVersion(id);
      if (again) return { status: 'exists' as const, ...describe(again.hit), catalog: again.catalog };
      this.assertFileFree(entry.file, models);
      categoryIn(models, placement.category).models.push(entry);
      return { status: 'added' as const, file: entry.file, name: entry.name, category: placement.category, dest: entry.dest };
    });
  }

  /** `POST /api/admin/modelhub/promote-to-lora/{version_id}`. */
  async promote(versionId: number): Promise<PromoteResult> {
    const id = String(versionId);
    const { models, loras } = this.deps.catalogs;
    return loras.updateTogether(models, (lorasDraft, modelsDraft) => {
      const inLoras = findIn(lorasDraft, id);
      const inModels = findIn(modelsDraft, id);
      if (inLoras) {
        // A promote cut short between its two renames leaves the entry in both: finish the move.
        if (inModels) removeFrom(modelsDraft, inModels.entry.file);
        return { status: 'already_in_loras' as const, ...describe(inLoras) };
      }
      if (!inModels) throw new DomainError('not_found', `Model hub version ${id} is not in the models catalog`);
      const { entry } = inModels;
      if (entry.dest !== 'loras') {
        throw new DomainError('invalid', `${entry.file} is not a LoRA (dest "${entry.dest}"); only entries with dest "loras" can be promoted`);
      }
      if (catalogEntries(lorasDraft).some((hit) => hit.entry.file === entry.file)) {
        throw new DomainError('conflict', `loras.json already has another entry for the file ${entry.file}`);
      }
      const category = loraCategoryFor(entry.base_model);
      removeFrom(modelsDraft, entry.file);
      categoryIn(lorasDraft, category).models.push(entry);
      return { status: 'promoted' as const, file: entry.file, name: entry.name, category, dest: entry.dest };
    });
  }

  private findVersion(id: string): { hit: { entry: CatalogEntry; category: { id: string } }; catalog: 'models' | 'loras' } | null {
    for (const catalog of ['loras', 'models'] as const) {
      const store = this.deps.catalogs[catalog];
      if (!store.isLoaded()) continue;
      const hit = findIn(store.get(), id);
      if (hit) return { hit, catalog };
    }
    return null;
  }

  private assertFileFree(file: string, models: CatalogFile): void {
    const loras = this.deps.catalogs.loras.isLoaded() ? this.deps.catalogs.loras.get() : null;
    for (const catalog of [models, loras]) {
      if (catalog && catalogEntries(catalog).some((hit) => hit.entry.file === file)) {
        throw new DomainError('conflict', `The catalogs already have another entry for the file ${file}`);
      }
    }
  }
}

function findIn(catalog: CatalogFile, versionId: string): { entry: CatalogEntry; category: { id: string } } | null {
  return catalogEntries(catalog).find((hit) => hit.entry.modelhub_version_id === versionId) ?? null;
}

function describe(hit: { entry: CatalogEntry; category: { id: string } }): { file: string; name: string; category: string; dest: string } {
  return { file: hit.entry.file, name: hit.entry.name, category: hit.category.id, dest: hit.entry.dest };
}

function categoryIn(catalog: CatalogFile, id: string): CatalogFile['categories'][number] {
  let category = catalog.categories.find((c) => c.id === id);
  if (!category) {
    category = { id, name: CATEGORY_NAMES[id] ?? id, models: [] };
    catalog.categories.push(category);
  }
  return category;
}

function removeFrom(catalog: CatalogFile, file: string): void {
  for (const category of catalog.categories) category.models = category.models.filter((entry) => entry.file !== file);
}
