/**
 * `GET /api/admin/modelhub/image/{id}`: a hub image's generation data, with every resource it
 * names checked against Studio's two catalogs, the LoRA/embedding tags of its prompts, and the
 * prompt without LoRA tags (what a preset made from it should start from).
 */
import type { CatalogStore } from '../catalog/catalog.store.js';
import { CatalogIndex, type IndexHit } from './catalog-index.js';
import { detectedType, detectProcess, nameList } from './image-kind.js';
import type { DetectedDep, ImageLookup, ImageResource } from '../contracts/modelhub.contract.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import { viaHub } from './modelhub-errors.js';
import type { ModelhubImage } from '../modelhub-client/modelhub.schema.js';
import { cleanPrompt, embeddingTags, networkTags } from './prompt-tags.js';

export interface ImageLookupDeps {
  client: ModelhubClient;
  catalogs: { models: CatalogStore; loras: CatalogStore };
}

/** Versions whose model name is looked up on the hub per request, at most (the rest keep null). */
const MAX_NAME_LOOKUPS = 8;

export class ImageLookupService {
  constructor(private readonly deps: ImageLookupDeps) {}

  /** The lookup for one image id (404 when the hub has no such image, 502/503 when it fails). */
  async lookup(imageId: number): Promise<ImageLookup> {
    const raw = await viaHub(() => this.deps.client.getImage(imageId));
    const meta = raw.meta ?? {};
    const index = CatalogIndex.of(this.deps.catalogs);
    const prompt = typeof meta.prompt === 'string' ? meta.prompt : '';
    const negative = typeof meta.negativePrompt === 'string' ? meta.negativePrompt : '';
    const process = detectProcess(raw);
    return {
      raw,
      resources: await this.resources(raw, index),
      detected_deps: [...deps(prompt, 'prompt', index), ...deps(negative, 'negative_prompt', index)],
      clean_prompt: cleanPrompt(prompt),
      meta,
      type: raw.type ?? 'image',
      process,
      techniques: nameList(raw.techniques ?? meta.techniques),
      tools: nameList(raw.tools ?? meta.tools),
      detected_type: detectedType(process),
    };
  }

  private async resources(raw: ModelhubImage, index: CatalogIndex): Promise<ImageResource[]> {
    const meta = raw.meta ?? {};
    const out: ImageResource[] = [];
    const seen = new Set<string>();
    for (const item of objects(meta.civitaiResources)) {
      const versionId = idOf(item.modelVersionId);
      if (versionId && seen.has(versionId)) continue;
      if (versionId) seen.add(versionId);
      const hit = versionId ? index.version(versionId) : null;
      out.push(resource(hit, versionId, stringOr(item.modelName, null), stringOr(item.type, null), numberOr(item.weight)));
    }
    for (const item of objects(meta.resources)) {
      const name = stringOr(item.name, null);
      const hash = stringOr(item.hash, null);
      const hit = (hash ? index.hash(hash) : null) ?? (name ? index.name(name) : null);
      const versionId = hit?.entry.modelhub_version_id ?? null;
      if (versionId && seen.has(versionId)) continue;
      if (versionId) seen.add(versionId);
      out.push(resource(hit, versionId, name, stringOr(item.type, null), numberOr(item.weight)));
    }
    for (const id of raw.modelVersionIds ?? []) {
      const versionId = String(id);
      if (seen.has(versionId)) continue;
      seen.add(versionId);
      out.push(resource(index.version(versionId), versionId, null, null, null));
    }
    await this.fillModelNames(out);
    return out;
  }

  /** Names the image did not carry, from the hub's version records (a few, in parallel). */
  private async fillModelNames(resources: ImageResource[]): Promise<void> {
    const missing = resources.filter((r) => r.modelName === null && r.versionId !== null).slice(0, MAX_NAME_LOOKUPS);
    await Promise.all(
      missing.map(async (r) => {
        try {
          const version = await this.deps.client.getModelVersion(r.versionId!);
          r.modelName = version.model?.name ?? null;
          r.type ??= version.model?.type ?? null;
        } catch {
          // A version the hub cannot describe keeps a null name; the lookup itself still answers.
        }
      }),
    );
  }
}

function resource(hit: IndexHit | null, versionId: string | null, name: string | null, type: string | null, weight: number | null): ImageResource {
  return {
    modelName: name ?? hit?.entry.name ?? null,
    versionId,
    type,
    weight,
    catalog_status: hit ? 'present' : 'not_found',
    catalog_file: hit?.entry.file ?? null,
    catalog: hit?.catalog ?? null,
  };
}

function deps(prompt: string, foundIn: DetectedDep['found_in'], index: CatalogIndex): DetectedDep[] {
  return [...networkTags(prompt), ...embeddingTags(prompt)].map((tag) => {
    const hit = index.name(tag.name);
    return {
      name: tag.name,
      weight: tag.weight,
      source: tag.kind,
      found_in: foundIn,
      catalog_status: hit ? 'present' : 'not_found',
      catalog_file: hit?.entry.file ?? null,
      catalog: hit?.catalog ?? null,
    };
  });
}

function objects(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];
}

function idOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (typeof value === 'string' && /^\d+$/.test(value)) return value;
  return null;
}

function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function numberOr(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}
