/**
 * What the two catalogs (models and LoRAs) already hold, indexed the ways a hub image names a
 * resource: by hub version id, by file name without extension (the name in `<lora:name:…>` and
 * `embedding:name`), and by SHA-256 prefix (A1111's `hash` is AutoV2, the first 10 hex digits).
 */
import path from 'node:path';
import type { CatalogEntry, CatalogFile } from '../contracts/catalog.contract.js';
import type { CatalogStore } from '../catalog/catalog.store.js';

/** The catalog that holds an entry. */
export type IndexCatalog = 'models' | 'loras';

/** An entry found in one of the catalogs. */
export interface IndexHit {
  catalog: IndexCatalog;
  entry: CatalogEntry;
}

/** Lookups over both catalogs at one moment. */
export class CatalogIndex {
  private readonly byVersion = new Map<string, IndexHit>();
  private readonly byStem = new Map<string, IndexHit>();
  private readonly hits: IndexHit[] = [];

  constructor(catalogs: Partial<Record<IndexCatalog, CatalogFile>>) {
    // LoRAs second, so a version left in both by an interrupted promote resolves to loras.json.
    for (const catalog of ['models', 'loras'] as const) {
      for (const category of catalogs[catalog]?.categories ?? []) {
        for (const entry of category.models) {
          const hit = { catalog, entry };
          this.hits.push(hit);
          if (entry.modelhub_version_id !== undefined) this.byVersion.set(entry.modelhub_version_id, hit);
          this.byStem.set(stem(entry.file), hit);
        }
      }
    }
  }

  /** Both loaded catalogs of the stores (a catalog that failed to load counts as empty). */
  static of(stores: Record<IndexCatalog, CatalogStore>): CatalogIndex {
    return new CatalogIndex({
      models: stores.models.isLoaded() ? stores.models.get() : undefined,
      loras: stores.loras.isLoaded() ? stores.loras.get() : undefined,
    });
  }

  /** The entry of a hub version. */
  version(versionId: string | number): IndexHit | null {
    return this.byVersion.get(String(versionId)) ?? null;
  }

  /** The entry whose file is `name` (with or without its extension), ignoring case. */
  name(name: string): IndexHit | null {
    return this.byStem.get(stem(name)) ?? this.byStem.get(name.toLowerCase()) ?? null;
  }

  /** The entry whose SHA-256 starts with `hash` (AutoV2 is 10 digits; a full hash also matches). */
  hash(hash: string): IndexHit | null {
    const wanted = hash.toLowerCase();
    if (!/^[0-9a-f]{8,64}$/.test(wanted)) return null;
    return this.hits.find((hit) => hit.entry.sha256?.toLowerCase().startsWith(wanted)) ?? null;
  }
}

const MODEL_EXTENSIONS = new Set(['.safetensors', '.ckpt', '.pt', '.pth', '.bin', '.gguf', '.sft']);

function stem(file: string): string {
  const ext = path.extname(file).toLowerCase();
  return (MODEL_EXTENSIONS.has(ext) ? file.slice(0, -ext.length) : file).toLowerCase();
}
