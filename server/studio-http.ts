/**
 * Part of the composition root: the one HTTP/WebSocket server of a Studio, given its modules'
 * routers. Its role decides what else it serves: a full Studio serves the web UI; an agent
 * (`STUDIO_ROLE=agent`) serves no UI and relays its engine's WebSocket to the Studio that uses it.
 */
import type http from 'node:http';
import path from 'node:path';
import { APP_ROOT, type Config } from './config.js';
import type { EngineModule } from './engine/engine.module.js';
import { engineMessage } from './engine/engine-process.js';
import { agentSocketRelay } from './engine/pool/agent-proxy.routes.js';
import { AGENT_ENGINE_PATH } from './engine/pool/remote-engine.js';
import type { EventBus } from './events/event-bus.js';
import { createHttpServer } from './http/app.js';
import type { AuthModule } from './http/auth.module.js';
import { homeRoutes } from './http/home.routes.js';
import type { Maintenance } from './http/maintenance.js';
import { rendererRoutes } from './http/renderer.routes.js';
import { reportedStorageFaults } from './http/storage-faults.js';
import type { WsHub } from './http/ws-hub.js';
import type { WsHandler } from './http/ws-server.js';
import type { Logger } from './logging.js';
import type { StudioModule } from './module.js';
import { STUDIO_TIME_ZONE } from './time.js';

export interface StudioHttpDeps {
  config: Readonly<Config>;
  logger: Logger;
  events: EventBus;
  auth: AuthModule;
  hub: WsHub;
  maintenance: Maintenance;
  engine: EngineModule;
  modules: readonly StudioModule[];
  /** More WebSocket paths (the engine API's socket, issue 44), and how many sockets an address holds there. */
  wsRoutes?: Array<{ path: string; handle: WsHandler }>;
  otherSockets?: (address: string) => number;
}

export function createStudioHttpServer({ config, logger, events, auth, hub, maintenance, engine, modules, wsRoutes = [], otherSockets }: StudioHttpDeps): http.Server {
  const agent = config.role === 'agent';
  const engineStatus = () => engine.process.state.status;
  return createHttpServer({
    logger,
    auth: auth.auth,
    maintenance,
    hub,
    hosts: { bindHost: config.host, allowed: config.allowedHosts },
    tls: config.tls,
    greeting: () => ({ version: config.version, engine: engineMessage(engine.process.state), maintenance: maintenance.active, time_zone: STUDIO_TIME_ZONE }),
    routers: modules.flatMap((module) => module.routers),
    storage: reportedStorageFaults({ dataDir: config.paths.root, dbFile: config.paths.dbFile, events }),
    audit: events,
    otherSockets,
    wsRoutes: agent ? [{ path: `${AGENT_ENGINE_PATH}/ws`, handle: agentSocketRelay(engine.process.url, logger, () => engine.process.state.pid) }] : wsRoutes,
    pageRouters: agent ? [] : [rendererRoutes({ distDir: path.join(APP_ROOT, 'renderer', 'dist'), fallback: homeRoutes({ version: config.version, engineStatus }) })],
  }).server;
}
