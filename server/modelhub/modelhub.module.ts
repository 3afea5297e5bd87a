/**
 * Wiring of the model hub capability (image lookup, catalog add/promote, gallery, tags) behind
 * one factory, so the composition root only constructs it, mounts its routers and starts/stops it.
 */
import type { CatalogStore } from '../catalog/catalog.store.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EventBus } from '../events/event-bus.js';
import type { UploadedFile } from '../http/uploads.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import { GalleryFetcher } from './gallery-fetch.service.js';
import { GalleryItems } from './gallery-items.js';
import { GalleryService } from './gallery.service.js';
import { GalleryStore } from './gallery.store.js';
import { GalleryThumbs } from './gallery-thumbs.js';
import { TagService } from './tags.service.js';
import { TagStore } from './tags.store.js';
import { CatalogMoves } from './catalog-moves.service.js';
import { ImageLookupService } from './image-lookup.service.js';
import { ImagePresetService, type PresetSink } from './image-preset.service.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import { modelhubRoutes } from './modelhub.routes.js';

export interface ModelhubModuleDeps {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  events: EventBus;
  /** Store an image in the engine's input folder (the runner's upload); returns its name there. */
  toInput: (file: UploadedFile) => Promise<string>;
  /** Where presets made from hub images go (the presets capability). */
  presets: PresetSink;
  /** The installed workflows' manifests (presets from hub images pick one). */
  workflows: () => Promise<Array<Record<string, unknown>>>;
  catalogs: { models: CatalogStore; loras: CatalogStore };
  /** The one model hub client (the composition root builds it; the catalogs share it). */
  client: ModelhubClient;
}

export function createModelhubModule(deps: ModelhubModuleDeps): StudioModule {
  const { config } = deps;
  const { client } = deps;
  const lookup = new ImageLookupService({ client, catalogs: deps.catalogs });
  const root = config.paths.gallery;
  const store = new GalleryStore(deps.db);
  const thumbs = new GalleryThumbs({ logger: deps.logger, env: config.childEnv });
  const items = new GalleryItems({ store, thumbs, root });
  const fetcher = new GalleryFetcher({
    client,
    store,
    items,
    events: deps.events,
    logger: deps.logger,
    communityLimit: config.gallery.communityLimit,
    pageDelayMs: config.gallery.pageDelayMs,
  });
  const gallery = new GalleryService({ store, fetcher, items, thumbs, client, root, toInput: deps.toInput });
  return {
    name: 'modelhub',
    routers: [
      modelhubRoutes({
        lookup,
        moves: new CatalogMoves({ client, catalogs: deps.catalogs }),
        tags: new TagService({ client, gallery: store, tags: new TagStore(deps.db) }),
        imagePresets: new ImagePresetService({ lookup, presets: deps.presets, workflows: deps.workflows, hubBaseUrl: config.urls.modelhub }),
        gallery,
      }),
    ],
    async start() {
      fetcher.start();
    },
    async stop() {
      await fetcher.stop();
      thumbs.stop();
    },
  };
}
