/**
 * Builds the pool member of an engine reached by URL. A plain ComfyUI is asked directly (it has
 * no authentication: only on a trusted network); an agent Studio serves its engine under
 * `/api/agent/engine` behind its own key, which goes with every call and the WebSocket handshake.
 * Neither reads Studio's folders: inputs are uploaded to it, outputs pulled from it.
 */
import type { Logger } from '../../logging.js';
import { EngineClient } from '../engine.client.js';
import { EngineSocket } from '../engine-socket.js';
import { EngineWatch } from '../engine-watch.js';
import { engineAvailability } from '../engine-availability.js';
import { PoolEngine } from './pool-engine.js';
import type { RemoteEngineRow } from './remote-engines.store.js';

/** Where an agent Studio serves its engine (`agent-proxy.routes.ts`). */
export const AGENT_ENGINE_PATH = '/api/agent/engine';

/**
 * A cancel sent to an engine Studio has just lost (frozen, or cut off) waits this long for it to
 * answer: the request sits in its socket and is read the moment it runs again, before its old
 * copy of a job can finish.
 */
const CANCEL_TIMEOUT_MS = 120_000;

/** One health check of an engine by URL waits at most this long. */
const REMOTE_PROBE_TIMEOUT_MS = 5_000;

export interface RemoteEngineContext {
  clientId: string;
  probeMs: number;
  logger: Logger;
}

/** The pool member for a stored remote engine or agent. */
export function remoteEngine(row: RemoteEngineRow, context: RemoteEngineContext): PoolEngine {
  const base = row.kind === 'agent' ? `${row.url.replace(/\/+$/, '')}${AGENT_ENGINE_PATH}` : row.url.replace(/\/+$/, '');
  const headers = row.key ? { 'X-API-Key': row.key } : undefined;
  // Another machine (or an agent relaying its engine) may take longer than a local child to answer.
  const watch = new EngineWatch({ healthUrl: `${base}/system_stats`, intervalMs: context.probeMs, probeTimeoutMs: REMOTE_PROBE_TIMEOUT_MS, logger: context.logger, headers });
  const client = new EngineClient({ baseUrl: base, headers, availability: engineAvailability(watch) });
  const cancelClient = new EngineClient({ baseUrl: base, headers, timeoutMs: CANCEL_TIMEOUT_MS });
  const socket = new EngineSocket({ baseUrl: base, clientId: context.clientId, logger: context.logger, headers, engineUp: () => watch.state.status === 'running' });
  return new PoolEngine({ id: row.id, name: row.name, kind: row.kind, url: row.url, client, cancelClient, socket, health: watch, sharesFolders: () => false, owned: true, logger: context.logger, ...(row.kind === 'agent' && row.key ? { agent: { url: row.url.replace(/\/+$/, ''), key: row.key } } : {}) });
}
