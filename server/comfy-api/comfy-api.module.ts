/**
 * The engine's own API served by Studio (issue 44), as `studio.ts` builds it: the HTTP routes under
 * `/comfy` and `/comfy/api`, the socket relay at `/comfy/ws` (fed by every engine of the pool),
 * and the on/off setting (off until the owner turns it on, or `COMFY_API=on`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { SettingsStore } from '../db/settings.store.js';
import type { EngineModule } from '../engine/engine.module.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import { serveEngineView } from '../engine/engine.routes.js';
import { LOCAL_ENGINE_ID } from '../engine/pool/engine-pool.js';
import { OWNER_ACTOR, type Actor } from '../http/actor.js';
import { isKind } from '../domain-error.js';
import type { Uploads } from '../http/uploads.js';
import type { WsHandler } from '../http/ws-server.js';
import type { JobsModule } from '../jobs/jobs.module.js';
import type { Logger } from '../logging.js';
import type { StudioModule } from '../module.js';
import type { ViewQuery } from '../contracts/engine.contract.js';
import type { ComfyApiState } from '../contracts/comfy-api.contract.js';
import { COMFY_PREFIXES, comfyApiRoutes } from './comfy-api.routes.js';
import { ComfyApiService } from './comfy-api.service.js';
import { ComfyPromptStore } from './comfy-prompts.store.js';
import { ComfyRelay } from './comfy-relay.js';

const ENABLED_KEY = 'comfy_api_enabled';

export interface ComfyApiModuleDeps {
  config: Readonly<Config>;
  db: Db;
  logger: Logger;
  uploads: Uploads;
  engine: Pick<EngineModule, 'pool' | 'client' | 'sharedFolders'>;
  jobs: Pick<JobsModule, 'runner' | 'jobs' | 'queue' | 'lifecycle'>;
  /** Whether `actor` may see a file (the assets capability knows whose each file is). */
  mayView: (actor: Actor, query: ViewQuery) => boolean;
  /** The socket relay's keepalive (tests shorten it). */
  keepaliveMs?: number;
}

export interface ComfyApiModule extends StudioModule {
  /** The door's socket paths, admitted like Studio's own. */
  wsRoutes: Array<{ path: string; handle: WsHandler }>;
  /** The door's sockets one client address holds (Studio's per-address cap counts them too). */
  socketsFrom(address: string): number;
  enabled(): boolean;
}

export function createComfyApiModule(deps: ComfyApiModuleDeps): ComfyApiModule {
  const { config, engine, jobs } = deps;
  const settings = new SettingsStore(deps.db);
  const store = new ComfyPromptStore(deps.db);
  const enabled = () => config.comfyApi.forcedOn || settings.get(ENABLED_KEY) === 'on';
  const state = (): ComfyApiState => ({ enabled: enabled(), forced_by_env: config.comfyApi.forcedOn, path: COMFY_PREFIXES[0], port: config.comfyApi.port });
  const online = () => engine.pool.list().filter((e) => e.status === 'online');
  const objectInfos = async (): Promise<ObjectInfo[]> => (await Promise.all(online().map((e) => e.objectInfo().catch(() => null)))).filter((i): i is ObjectInfo => i !== null);
  const service = new ComfyApiService({
    store,
    runGraph: (graph, run, origin) => jobs.runner.executeGraph(graph, run, origin),
    job: (id) => jobs.jobs.get(id),
    cancel: (id, actor) => jobs.queue.cancel(id, actor),
    objectInfos,
    folderOutputs: (job) => {
      if (!job.output_dir) return [];
      const sub = `${job.output_dir}/final`;
      const files = fs.existsSync(path.join(config.paths.assetsOutput, sub)) ? fs.readdirSync(path.join(config.paths.assetsOutput, sub)) : [];
      return files.filter((f) => !f.startsWith('.')).sort().map((filename) => ({ filename, subfolder: sub }));
    },
    engineHistory: async (job) => (engine.pool.get(job.engine_id ?? LOCAL_ENGINE_ID)?.client ?? engine.client).history(job.prompt_id),
  });
  // Prompts a Studio restart stalled, run again once an engine can take them (the client's ids, in order).
  const resuming = new Set<string>();
  const relay = new ComfyRelay({ store, service, job: (id) => jobs.jobs.get(id), enabled, resuming: (id) => resuming.has(id), logger: deps.logger, keepaliveMs: deps.keepaliveMs });
  let resumeTimer: NodeJS.Timeout | null = null;
  let resumingNow = false;
  const resume = async () => {
    if (resumingNow || resuming.size === 0) return;
    resumingNow = true;
    try {
      for (const id of [...resuming]) {
        const prompt = store.get(id);
        const job = prompt ? jobs.jobs.get(prompt.job_id) : null;
        if (!prompt || job?.status !== 'stalled') {
          resuming.delete(id);
          continue;
        }
        try {
          await service.resubmit(prompt, OWNER_ACTOR);
          resuming.delete(id);
        } catch (err) {
          // No engine answers yet: the next round tries again. Anything else ends it (its client hears the end).
          if (isKind(err, 'unavailable')) return;
          resuming.delete(id);
          deps.logger.warn(`the engine API prompt ${id} stalled by the restart could not run again`, err);
          relay.jobChanged(job);
        }
      }
    } finally {
      resumingNow = false;
    }
  };
  const detach = new Map<string, () => void>();
  const attach = (member: { id: string; socket: Parameters<ComfyRelay['attach']>[1] }) => {
    detach.get(member.id)?.();
    detach.set(member.id, relay.attach(member.id, member.socket));
  };
  const offs = [
    engine.pool.onAdded(attach),
    engine.pool.onRemoved((member) => {
      detach.get(member.id)?.();
      detach.delete(member.id);
    }),
    jobs.lifecycle.subscribe((change) => {
      if (change.type === 'job.deleted') return;
      const cause = change.type === 'job.stalled' ? change.reason.cause : null;
      if (config.jobs.resumeAfterRestart && (cause === 'restart' || cause === 'engine_restart')) {
        const prompt = store.byJob(change.job.prompt_id);
        if (prompt) resuming.add(prompt.prompt_id);
      }
      relay.jobChanged(change.job);
    }),
  ];
  for (const member of engine.pool.list()) attach(member);
  const embeddingsDir = path.join(config.paths.models, 'embeddings');

  return {
    name: 'comfy-api',
    enabled,
    socketsFrom: (address) => relay.countFrom(address),
    routers: [
      comfyApiRoutes({
        service,
        uploads: deps.uploads,
        enabled,
        state,
        setEnabled: (on) => {
          settings.set(ENABLED_KEY, on ? 'on' : 'off');
          return state();
        },
        objectInfos,
        systemStats: async () => {
          const local = engine.pool.get(LOCAL_ENGINE_ID);
          for (const member of [...(local?.status === 'online' ? [local] : []), ...online()]) {
            const stats = await member.systemStats().catch(() => null);
            if (stats) return stats;
          }
          return engine.client.systemStats();
        },
        embeddings: async () =>
          (await fs.promises.readdir(embeddingsDir).catch(() => [] as string[])).filter((f) => !f.startsWith('.')).map((f) => f.replace(/\.[^.]+$/, '')),
        storeInput: (file, ownerId) => jobs.runner.uploadImage(file, ownerId),
        mayView: deps.mayView,
        serveView: serveEngineView(engine.client, engine.sharedFolders),
      }),
    ],
    wsRoutes: COMFY_PREFIXES.map((prefix) => ({ path: `${prefix}/ws`, handle: (socket, req, actor) => relay.connect(socket, req, actor) })),
    start() {
      resumeTimer = setInterval(() => void resume(), 1_000);
      resumeTimer.unref();
    },
    stop() {
      if (resumeTimer) clearInterval(resumeTimer);
      relay.stop();
      for (const off of offs) off();
      for (const off of detach.values()) off();
    },
  };
}
