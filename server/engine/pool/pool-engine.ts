/**
 * One engine of the pool, whatever its kind: the local engine (managed, external or stand-in),
 * one managed engine per GPU of this box, a ComfyUI on another machine reached by URL, or another
 * Studio running as an agent. Each has its own HTTP client, WebSocket and health source (the
 * supervisor of a child Studio started, or a watch that probes an engine someone else runs), one
 * status the queue and the Engines page read, and a cached `object_info` (what it can run).
 */
import type { EngineKind, EngineStatus as PoolStatus } from '../../contracts/engines.contract.js';
import type { Logger } from '../../logging.js';
import type { ObjectInfo } from '../engine-graph.js';
import type { EngineSystemStats } from '../engine-protocol.js';
import type { EngineClient } from '../engine.client.js';
import type { EngineSocket } from '../engine-socket.js';

/** What tells the pool whether an engine answers: a child's supervisor or a watch (both fit). */
export interface HealthSource {
  readonly state: { status: string; lastError: string | null };
  onStateChange(listener: (state: { status: string; lastError: string | null }) => void): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface PoolEngineOptions {
  id: string;
  name: string;
  kind: EngineKind;
  /** What users see (the engine's own URL, or the agent's). */
  url: string;
  client: EngineClient;
  /** For cancels to the engine while Studio thinks it down (no availability gate, a long wait); default `client`. */
  cancelClient?: EngineClient;
  socket: EngineSocket;
  health: HealthSource;
  /** True when the engine reads Studio's input folder and writes into its output folder. */
  sharesFolders: () => boolean;
  /** The pool starts and stops it (false for the local engine: the engine module owns that). */
  owned: boolean;
  /** A Studio agent: its own URL and the key it takes (it can be asked to download a model). */
  agent?: { url: string; key: string };
  logger: Logger;
}

/**
 * The frame an agent sends first on each relayed socket, before any of its engine's: which engine
 * process this is. The main Studio's pool compares it with the last one (`pool-engine.ts`): a new
 * pid means the engine restarted — perhaps faster than the main Studio's health interval — and
 * lost the jobs it held, which then fail over like an engine that went offline.
 */
export const AGENT_ENGINE_FRAME = 'studio.agent_engine';

/** An `object_info` older than this is read again before routing (a model may have been added). */
const OBJECT_INFO_TTL_MS = 60_000;

export class PoolEngine {
  readonly id: string;
  readonly name: string;
  readonly kind: EngineKind;
  readonly url: string;
  readonly client: EngineClient;
  readonly cancelClient: EngineClient;
  readonly socket: EngineSocket;
  readonly owned: boolean;
  readonly agent: { url: string; key: string } | null;
  /** True when the engine works in Studio's own input and output folders (nothing to upload or pull). */
  readonly sharesFolders: () => boolean;
  private readonly health: HealthSource;
  private readonly logger: Logger;
  private info: { at: number; value: ObjectInfo } | null = null;
  /** The node list being read, shared by every caller that asks meanwhile. */
  private reading: Promise<ObjectInfo> | null = null;
  /** The last node list it gave, kept across restarts (readiness uses it, marked stale, while it cannot answer). */
  private last: { at: number; value: ObjectInfo } | null = null;
  /** An agent's engine process, as its relay last said (`AGENT_ENGINE_FRAME`). */
  private agentEnginePid: number | null = null;
  private readonly restartedListeners = new Set<() => void>();
  private stats: EngineSystemStats | null = null;

  constructor(options: PoolEngineOptions) {
    this.id = options.id;
    this.name = options.name;
    this.kind = options.kind;
    this.url = options.url;
    this.client = options.client;
    this.cancelClient = options.cancelClient ?? options.client;
    this.socket = options.socket;
    this.owned = options.owned;
    this.agent = options.agent ?? null;
    this.health = options.health;
    this.sharesFolders = options.sharesFolders;
    this.logger = options.logger;
    if (this.agent) {
      this.socket.onMessage((msg) => {
        if (msg.type !== 'other' || msg.engineType !== AGENT_ENGINE_FRAME) return;
        const pid = (msg.data as { pid?: unknown } | undefined)?.pid;
        if (typeof pid !== 'number') return;
        const previous = this.agentEnginePid;
        this.agentEnginePid = pid;
        if (previous === null || previous === pid) return;
        this.clearObjectInfo();
        this.logger.warn(`engine ${this.id}: the agent's engine restarted (pid ${previous} → ${pid})`);
        for (const listener of this.restartedListeners) listener();
      });
    }
    // An engine that (re)starts may come with other nodes and models: read them again.
    this.health.onStateChange((state) => {
      if (state.status !== 'running') this.clearObjectInfo();
    });
  }

  /** online (answers), starting, offline (does not answer, or crashed) or stopped. */
  get status(): PoolStatus {
    return poolStatus(this.health.state.status);
  }

  get lastError(): string | null {
    return this.health.state.lastError;
  }

  /** Calls `listener` with the new status each time it changes; returns the unsubscribe. */
  onStatus(listener: (status: PoolStatus, previous: PoolStatus) => void): () => void {
    let previous = this.status;
    return this.health.onStateChange((state) => {
      const next = poolStatus(state.status);
      if (next === previous) return;
      const was = previous;
      previous = next;
      listener(next, was);
    });
  }

  /** Calls `listener` when an agent says its engine restarted (the jobs it held are gone); returns the unsubscribe. */
  onRestarted(listener: () => void): () => void {
    this.restartedListeners.add(listener);
    return () => this.restartedListeners.delete(listener);
  }

  /** Its node types and model lists, cached a minute; null when it cannot be asked. */
  async objectInfo(fresh = false): Promise<ObjectInfo | null> {
    const cached = fresh ? null : this.freshInfo();
    if (cached || this.status !== 'online') return cached ?? this.info?.value ?? null;
    return this.readObjectInfo(fresh).catch((err: unknown) => {
      this.logger.warn(`engine ${this.id}: object_info not readable`, err);
      return this.info?.value ?? null;
    });
  }

  /** Its node list, cached a minute, one read at a time, asked even when it seems down (the caller gets the engine's error). */
  readObjectInfo(fresh = false): Promise<ObjectInfo> {
    const cached = fresh ? null : this.freshInfo();
    if (cached) return Promise.resolve(cached);
    if (this.reading) return this.reading;
    const reading: Promise<ObjectInfo> = this.client
      .objectInfo()
      .then((value) => {
        // A list read before a clear (restart, nodes installed) is not kept.
        if (this.reading === reading) this.info = this.last = { at: Date.now(), value };
        return value;
      })
      .finally(() => {
        if (this.reading === reading) this.reading = null;
      });
    this.reading = reading;
    return reading;
  }

  /** The last `object_info` read, without asking (routing runs often; it refreshes in the background). */
  cachedObjectInfo(): ObjectInfo | null {
    if (!this.freshInfo()) void this.objectInfo();
    return this.info?.value ?? null;
  }

  /** The last node list it gave and when, even from before a restart; null when it never has. */
  lastObjectInfo(): { at: number; value: ObjectInfo } | null {
    return this.last;
  }

  /** Forget the cached node list (the engine restarted, nodes were installed): the next ask reads it again. */
  clearObjectInfo(): void {
    this.info = null;
    this.reading = null;
  }

  private freshInfo(): ObjectInfo | null {
    return this.info && Date.now() - this.info.at < OBJECT_INFO_TTL_MS ? this.info.value : null;
  }

  /** Its `system_stats` (GPU, VRAM), refreshed on each call when it answers. */
  async systemStats(): Promise<EngineSystemStats | null> {
    if (this.status !== 'online') return this.stats;
    this.stats = await this.client.systemStats().catch(() => this.stats);
    return this.stats;
  }

  /** Start its socket and (for the engines the pool owns) its child or health watch. */
  async start(): Promise<void> {
    this.socket.start();
    if (this.owned) await this.health.start();
  }

  async stop(): Promise<void> {
    await this.socket.stop();
    if (this.owned) await this.health.stop();
  }
}

/** A supervisor's or watch's status in the pool's words. */
function poolStatus(status: string): PoolStatus {
  if (status === 'running') return 'online';
  if (status === 'starting' || status === 'restarting') return 'starting';
  if (status === 'stopped' || status === 'stopping') return 'stopped';
  return 'offline';
}
