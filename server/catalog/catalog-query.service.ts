/**
 * Read side of the catalogs: the catalog responses with live `status` / `on_disk_bytes` and
 * `stats` (spec "Catalog entries"), the LLM catalog with its `summary`, compatible LoRAs and the
 * model-hub map. Presence is read from the disk on every call; nothing about it is stored.
 */
import type { Downloads } from '../downloads/index.js';
import { catalogUnreadable, type CatalogSet } from './catalog-set.js';
import type { CatalogFile, CatalogKind, CatalogStats, LoraPair } from '../contracts/catalog.contract.js';
import type { DiskUsage } from './disk-usage.js';
import { compatibleLoras } from './lora-pairs.js';
import type { MetadataService } from './metadata.service.js';
import { buildModelhubMap, type ModelhubMap } from './modelhub-map.js';
import { diskPresence, presenceSummary, withLiveStatus, type ModelDirs } from './model-status.js';

export type LiveCatalog = ReturnType<typeof withLiveStatus>;

export interface CatalogQueryDeps {
  catalogs: CatalogSet;
  dirs: ModelDirs;
  downloads: Downloads;
  metadata: MetadataService;
  disk: DiskUsage;
}

export class CatalogQueries {
  constructor(private readonly deps: CatalogQueryDeps) {}

  /** `GET /api/admin/models` / `GET /api/admin/loras`. */
  async catalog(kind: 'models' | 'loras'): Promise<LiveCatalog & { stats: CatalogStats }> {
    const catalog = await this.loaded(kind);
    const states = this.deps.downloads.queueStates();
    const presence = diskPresence(this.deps.dirs);
    const live = withLiveStatus(catalog, kind, presence, (file) => states.get(file) ?? null);
    const entries = live.categories.flatMap((category) => category.models);
    const count = (test: (entry: (typeof entries)[number]) => boolean) => entries.filter(test).length;
    const disk = await this.deps.disk.get();
    const stats: CatalogStats = {
      queued_count: count((entry) => entry.status === 'queued'),
      downloading_count: count((entry) => entry.status === 'downloading'),
      ...(kind === 'models' ? { fetching_count: this.deps.metadata.fetchingCount('models') } : {}),
      present_count: count((entry) => entry.status === 'present' || entry.on_disk_bytes > 0),
      total_count: entries.length,
      global_speed: this.deps.downloads.globalSpeed(),
      models_bytes: disk.models_bytes,
      free_bytes: disk.free_bytes,
    };
    return { ...live, stats };
  }

  /** `GET /api/admin/llm/models`: the LLM catalog with `summary` instead of `stats`. */
  async llmCatalog(): Promise<LiveCatalog & { summary: { total: number; present: number } }> {
    const catalog = await this.loaded('llm');
    const states = this.deps.downloads.queueStates();
    const presence = diskPresence(this.deps.dirs);
    const live = withLiveStatus(catalog, 'llm', presence, (file) => states.get(file) ?? null);
    return { ...live, summary: presenceSummary(catalog, 'llm', presence) };
  }

  /** `GET /api/admin/loras/compatible/{base_model}`. */
  async compatible(baseModel: string): Promise<LoraPair[]> {
    return compatibleLoras(await this.loaded('loras'), baseModel);
  }

  /** `GET /api/admin/models/civitai-map` over both catalogs. */
  async modelhubMap(): Promise<ModelhubMap> {
    const presence = diskPresence(this.deps.dirs);
    return buildModelhubMap(await this.loaded('models'), await this.loaded('loras'), (entry, kind) => presence.isPresent(entry, kind));
  }

  /** The catalog of `kind`, loading it again if the boot load failed; 500 when it cannot be read. */
  private async loaded(kind: CatalogKind): Promise<CatalogFile> {
    const store = this.deps.catalogs[kind];
    if (store.isLoaded()) return store.get();
    try {
      return await store.load();
    } catch (err) {
      throw catalogUnreadable([{ kind, reason: (err as Error).message }]);
    }
  }
}
