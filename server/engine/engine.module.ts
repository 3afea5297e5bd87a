/**
 * The engine capability as `studio.ts` builds it: the engine's lifecycle (a child Studio starts,
 * or someone else's engine it watches), its HTTP client and WebSocket listener, the shared-folder
 * check, the `/api/engine/view` route, and the policy that turns its states into WebSocket
 * messages and events. Other modules follow it through `onUp` / `onDown`.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { WsHub } from '../http/ws-hub.js';
import type { Logger } from '../logging.js';
import { withDeadline, type StudioModule } from '../module.js';
import { announceEngineStates } from './engine-announce.js';
import { engineAvailability } from './engine-availability.js';
import { loadEngineClientId } from './engine-client-id.store.js';
import { EngineClient } from './engine.client.js';
import { studioEngineDirs } from './engine-launch.js';
import { EngineProcess } from './engine-process.js';
import { engineRoutes, viewAsMissing } from './engine.routes.js';
import { EngineSocket } from './engine-socket.js';
import { SharedFolders } from './shared-folders.js';
import type { Db } from '../db/database.js';
import type { ViewQuery } from '../contracts/engine.contract.js';
import { EnginePool, LOCAL_ENGINE_ID } from './pool/engine-pool.js';
import { gpuEngines, gpuEnv } from './pool/gpu-engines.js';
import { PoolEngine } from './pool/pool-engine.js';
import { RemoteEngineStore } from './pool/remote-engines.store.js';
import { agentProxyRoutes } from './pool/agent-proxy.routes.js';
import { agentModelRoutes, type AgentModelCatalog } from './pool/agent-models.routes.js';

export interface EngineModuleDeps {
  config: Readonly<Config>;
  db: Db;
  events: EventBus;
  hub: WsHub;
  logger: Logger;
  /** Start the engine with Studio (tests of the HTTP layer alone turn it off). */
  startEngine: boolean;
  /** First wait before the shared-folder probe runs again after a marker could not be written. */
  sharedFolderRecheckMs?: number;
  /** External mode: delay between health probes (default 5000). */
  probeMs?: number;
  /** Agent mode: this Studio's catalog, for the main Studio's model download requests. */
  agentModels?: AgentModelCatalog;
}

export interface EngineModule extends StudioModule {
  process: EngineProcess;
  client: EngineClient;
  socket: EngineSocket;
  /** Which engine folders are Studio's own (re-checked each time the engine comes up). */
  sharedFolders: SharedFolders;
  /** Answers `/api/engine/view` as for a missing file, whatever the engine's state (the view guard's refusal). */
  viewAsMissing(query: ViewQuery): Promise<never>;
  /** Runs each time the engine is (again) running, after the module's own checks. */
  onUp(listener: () => void): void;
  /** Runs each time a running engine stops running. */
  onDown(listener: () => void): void;
  /** Resolves when the engine answers (or rejects after `timeoutMs`). */
  ready(timeoutMs?: number): Promise<void>;
  /** Every engine jobs may go to: the local one, one per extra GPU, and those added by URL. */
  pool: EnginePool;
  /** The local engine as a pool member: its node list cache is the one every user asks. */
  local: PoolEngine;
}

export function createEngineModule(deps: EngineModuleDeps): EngineModule {
  const { config, logger } = deps;
  // With ENGINE_GPUS the local engine runs on the first GPU; the pool starts one more per other GPU.
  const gpus = config.engine.gpus;
  const env = gpus.length && config.engine.mode !== 'external' ? gpuEnv(config.childEnv, gpus[0]!) : config.childEnv;
  const engine = new EngineProcess({ config, logger, env, externalProbeIntervalMs: deps.probeMs });
  // Calls fail at once while the engine is known to be down, instead of waiting out timeouts.
  const client = new EngineClient({ baseUrl: engine.url, availability: engineAvailability(engine) });
  // Kept across restarts: the engine sends a prompt's events to the id it was submitted with.
  const socket = new EngineSocket({ baseUrl: engine.url, clientId: loadEngineClientId(path.join(config.paths.jobs, 'engine-client-id')), logger, engineUp: () => engine.state.status === 'running' });
  const sharedFolders = new SharedFolders({ engine: client, dirs: studioEngineDirs(config), logger, recheckMs: deps.sharedFolderRecheckMs });
  const pool = new EnginePool({ store: new RemoteEngineStore(deps.db), events: deps.events, logger, remote: { clientId: socket.clientId, probeMs: config.engine.poolProbeMs } });
  const shared = () => sharedFolders.folders.includes('input') && sharedFolders.folders.includes('output');
  const local = new PoolEngine({ id: LOCAL_ENGINE_ID, name: 'This computer', kind: 'local', url: engine.url, client, socket, health: engine, sharesFolders: shared, owned: false, logger });
  void pool.register(local);
  for (const member of gpuEngines(config, { clientId: socket.clientId, logger })) void pool.register(member);
  const up: Array<() => void> = [];
  const down: Array<() => void> = [];
  const probe = () => sharedFolders.probe().catch((err: unknown) => logger.warn(`shared folder probe failed: ${String(err)}`));

  const offs = [
    announceEngineStates(engine, deps, (state, previous) => {
      if (state.status === 'running') {
        void probe();
        // The socket may sit in a backoff of several seconds; the engine answers now, so connect now.
        socket.retryNow();
        for (const listener of up) listener();
      } else if (previous === 'running') {
        sharedFolders.forget();
        for (const listener of down) listener();
      }
    }),
    // A reconnect may mean an engine restarted unnoticed (perhaps with other folders): check again.
    socket.onReconnect(() => {
      if (engine.state.status === 'running') void probe();
    }),
  ];

  return {
    name: 'engine',
    routers: [engineRoutes(client, sharedFolders), ...(config.role === 'agent' ? [agentProxyRoutes(engine.url, logger), ...(deps.agentModels ? [agentModelRoutes(deps.agentModels)] : [])] : [])],
    process: engine,
    client,
    socket,
    sharedFolders,
    viewAsMissing: viewAsMissing(client, sharedFolders),
    onUp: (listener) => void up.push(listener),
    onDown: (listener) => void down.push(listener),
    ready: (timeoutMs = 30_000) => engineReady(engine, timeoutMs),
    pool,
    local,
    prepare: async () => pool.loadStored(),
    start() {
      if (!deps.startEngine) return;
      socket.start();
      engine.start().catch((err: unknown) => logger.error('engine did not start', err));
      void pool.start();
    },
    stopDeadlineMs: 20_000,
    async stop() {
      await withDeadline(pool.stop(), 10_000, () => logger.warn('the pool engines did not stop in time'));
      sharedFolders.forget();
      await withDeadline(socket.stop(), 3_000, () => logger.warn('engine socket did not close in time'));
      await withDeadline(engine.stop(), 15_000, () => logger.warn('engine did not stop in time'));
      for (const off of offs) off();
    },
  };
}

function engineReady(engine: EngineProcess, timeoutMs: number): Promise<void> {
  if (engine.state.status === 'running') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`engine not ready after ${timeoutMs} ms (status ${engine.state.status})`));
    }, timeoutMs);
    const off = engine.onStateChange((state) => {
      if (state.status === 'running') {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}
