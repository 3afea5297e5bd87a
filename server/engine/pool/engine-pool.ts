/**
 * The engine pool: the one registry of the engines Studio hands jobs to. The local engine (as
 * configured) is always there; the per-GPU engines come from `ENGINE_GPUS`; remote engines and
 * agents are added and removed by URL and kept in SQLite. The queue follows it (`onAdded`,
 * `onRemoved`, `onStatus`) and routes each job among its members. Engine setup code registers or
 * replaces an engine with `register(engine)` (same id: the old one is stopped and replaced).
 */
import crypto from 'node:crypto';
import { DomainError } from '../../domain-error.js';
import type { AddEngineBody, EngineStatus } from '../../contracts/engines.contract.js';
import type { EventBus } from '../../events/event-bus.js';
import type { Logger } from '../../logging.js';
import type { PoolEngine } from './pool-engine.js';
import { remoteEngine, type RemoteEngineContext } from './remote-engine.js';
import type { RemoteEngineStore } from './remote-engines.store.js';

export const LOCAL_ENGINE_ID = 'local';

export interface EnginePoolDeps {
  store: RemoteEngineStore;
  events: EventBus;
  logger: Logger;
  /** How remote members are built (client id, probe interval). */
  remote: Omit<RemoteEngineContext, 'logger'>;
}

type StatusListener = (engine: PoolEngine, status: EngineStatus, previous: EngineStatus) => void;

export class EnginePool {
  private readonly members = new Map<string, { engine: PoolEngine; off: () => void }>();
  private readonly addedListeners = new Set<(engine: PoolEngine) => void>();
  private readonly removedListeners = new Set<(engine: PoolEngine) => void>();
  private readonly statusListeners = new Set<StatusListener>();
  private started = false;

  constructor(private readonly deps: EnginePoolDeps) {}

  /** The engines, the local one first, then in the order they joined. */
  list(): PoolEngine[] {
    return [...this.members.values()].map((m) => m.engine);
  }

  get(id: string): PoolEngine | null {
    return this.members.get(id)?.engine ?? null;
  }

  /** Add `engine`, or replace the member with its id (stopped first). Started at once if the pool runs. */
  async register(engine: PoolEngine): Promise<void> {
    if (this.members.has(engine.id)) await this.unregister(engine.id);
    const off = engine.onStatus((status, previous) => this.statusChanged(engine, status, previous));
    this.members.set(engine.id, { engine, off });
    for (const listener of this.addedListeners) listener(engine);
    if (this.started) await this.startMember(engine);
  }

  /** Load the stored remote engines (before start). */
  loadStored(): void {
    for (const row of this.deps.store.all()) void this.register(remoteEngine(row, { ...this.deps.remote, logger: this.deps.logger }));
  }

  /** `POST /api/admin/engines`: a ComfyUI by URL, or a Studio agent when a key is given. */
  async addRemote(body: AddEngineBody): Promise<PoolEngine> {
    const url = body.url.replace(/\/+$/, '');
    if (this.list().some((e) => e.url.replace(/\/+$/, '') === url)) throw new DomainError('conflict', `An engine at ${url} is already in the pool`);
    const row = { id: `e-${crypto.randomBytes(4).toString('hex')}`, name: body.name, kind: body.key ? ('agent' as const) : ('remote' as const), url, key: body.key ?? null, added_ms: Date.now() };
    this.deps.store.add(row);
    const engine = remoteEngine(row, { ...this.deps.remote, logger: this.deps.logger });
    await this.register(engine);
    this.deps.events.emit('engine.added', 'info', `Engine added: ${row.name} (${row.kind}, ${url})`, { engine_id: row.id, kind: row.kind, url });
    return engine;
  }

  /** `DELETE /api/admin/engines/{id}`: only engines added by URL; the others come from configuration. */
  async removeRemote(id: string): Promise<void> {
    const engine = this.get(id);
    if (!engine) throw new DomainError('not_found', `Engine not found: ${id}`);
    if (engine.kind !== 'remote' && engine.kind !== 'agent') throw new DomainError('conflict', `Engine ${id} comes from Studio's configuration (${engine.kind}) and cannot be removed`);
    this.deps.store.remove(id);
    await this.unregister(id);
    this.deps.events.emit('engine.removed', 'info', `Engine removed: ${engine.name}`, { engine_id: id });
  }

  onAdded(listener: (engine: PoolEngine) => void): () => void {
    this.addedListeners.add(listener);
    return () => this.addedListeners.delete(listener);
  }

  onRemoved(listener: (engine: PoolEngine) => void): () => void {
    this.removedListeners.add(listener);
    return () => this.removedListeners.delete(listener);
  }

  /** Every member's status changes (`online`, `offline`…). */
  onStatus(listener: StatusListener): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Start the members the pool owns (the local engine is started by the engine module). */
  async start(): Promise<void> {
    this.started = true;
    await Promise.all(this.list().filter((e) => e.id !== LOCAL_ENGINE_ID).map((e) => this.startMember(e)));
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all(this.list().filter((e) => e.id !== LOCAL_ENGINE_ID).map((e) => e.stop().catch((err: unknown) => this.deps.logger.warn(`engine ${e.id} did not stop cleanly`, err))));
  }

  private async unregister(id: string): Promise<void> {
    const member = this.members.get(id);
    if (!member) return;
    this.members.delete(id);
    member.off();
    for (const listener of this.removedListeners) listener(member.engine);
    await member.engine.stop().catch((err: unknown) => this.deps.logger.warn(`engine ${id} did not stop cleanly`, err));
  }

  private async startMember(engine: PoolEngine): Promise<void> {
    await engine.start().catch((err: unknown) => this.deps.logger.error(`engine ${engine.id} did not start`, err));
  }

  private statusChanged(engine: PoolEngine, status: EngineStatus, previous: EngineStatus): void {
    // The local engine's states have events of their own (`engine.state`); the others get these.
    if (engine.id !== LOCAL_ENGINE_ID && (status === 'online' || (status === 'offline' && previous === 'online'))) {
      const offline = status === 'offline';
      this.deps.events.emit(offline ? 'engine.offline' : 'engine.online', offline ? 'warning' : 'info', `Engine ${engine.name} is ${status}${offline && engine.lastError ? `: ${engine.lastError}` : ''}`, { engine_id: engine.id });
    }
    if (status === 'online') engine.socket.retryNow();
    for (const listener of this.statusListeners) listener(engine, status, previous);
  }
}
