/**
 * Wiring of the assets capability behind one factory for the composition root.
 */
import path from 'node:path';
import type express from 'express';
import type { Config } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import type { Uploads } from '../http/uploads.js';
import { assetsRoutes } from './assets.routes.js';
import { AssetsService } from './assets.service.js';
import { Thumbnails } from './thumbnails.js';
import type { AssetOwners } from './asset-owners.js';
import { viewGuardRoutes } from './view-guard.routes.js';
import type { ViewQuery } from '../contracts/engine.contract.js';

export interface AssetsModuleDeps {
  config: Readonly<Config>;
  events: EventBus;
  logger: Logger;
  /** The ffmpeg executable for video thumbnails (default `ffmpeg` on PATH). */
  ffmpegPath?: string;
  /** Multipart uploads (input files). */
  uploads: Uploads;
  /** Who each asset belongs to (members see only their own). */
  owners?: AssetOwners;
  /** The engine's answer for a missing `/api/engine/view` file (the view guard answers another person's file so). */
  viewAsMissing: (query: ViewQuery) => Promise<never>;
}

export interface AssetsModule extends StudioModule {
  service: AssetsService;
  /** Mounted before the engine's routes: `/api/engine/view` of another person's file answers as a missing one. */
  viewGuard: express.Router;
  /** Kill thumbnail children still running. */
  stop(): void;
}

/** Thumbnails are cached here, outside `assets/` so they never show up as assets. */
function thumbnailCacheDir(config: Readonly<Config>): string {
  return path.join(config.paths.root, '.thumbs');
}

/** Build the assets capability. */
export function createAssetsModule(deps: AssetsModuleDeps): AssetsModule {
  const roots = { inputs: deps.config.paths.assetsInput, outputs: deps.config.paths.assetsOutput };
  const thumbnails = new Thumbnails({ cacheDir: thumbnailCacheDir(deps.config), logger: deps.logger, ffmpegPath: deps.ffmpegPath, env: deps.config.childEnv });
  const service = new AssetsService({ roots, events: deps.events, thumbnails, owners: deps.owners });
  return { name: 'assets', routers: [assetsRoutes(service, deps.uploads)], service, viewGuard: viewGuardRoutes(deps.owners, deps.viewAsMissing), stop: () => thumbnails.stop() };
}
