/**
 * Wiring of the model hub capability (image lookup, catalog add/promote, gallery, tags) behind
 * one factory, so the composition root only constructs it, mounts its routers and starts/stops it.
 */
import type express from 'express';
import type { CatalogStore } from '../catalog/catalog.store.js';
import type { Config } from '../config.js';
import type { Logger } from '../logging.js';
import { CatalogMoves } from './catalog-moves.service.js';
import { ImageLookupService } from './image-lookup.service.js';
import { ModelhubClient } from './modelhub.client.js';
import { modelhubRoutes } from './modelhub.routes.js';

export interface ModelhubModuleDeps {
  config: Readonly<Config>;
  logger: Logger;
  catalogs: { models: CatalogStore; loras: CatalogStore };
  /** The hub token in force (editable at runtime); defaults to the config's. */
  apiKey?: () => string | null;
}

/** The built capability. */
export interface ModelhubModule {
  routers: express.Router[];
  client: ModelhubClient;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Build the model hub capability. */
export function createModelhubModule(deps: ModelhubModuleDeps): ModelhubModule {
  const { config } = deps;
  const client = new ModelhubClient({ baseUrl: config.urls.modelhub, apiKey: deps.apiKey ?? (() => config.tokens.modelhubApiKey) });
  const lookup = new ImageLookupService({ client, catalogs: deps.catalogs });
  return {
    routers: [modelhubRoutes({ lookup, moves: new CatalogMoves({ client, catalogs: deps.catalogs }) })],
    client,
    async start() {},
    async stop() {},
  };
}
