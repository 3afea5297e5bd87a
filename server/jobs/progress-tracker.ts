/**
 * Progress of one prompt, computed from the engine's WebSocket messages (pure logic, no I/O).
 *
 * Percent model. The work is the graph's *effective* nodes: all nodes minus cached ones (the
 * engine lists them in `execution_cached` and never runs them) minus *instant* ones. A node is
 * instant when its class is a known constant source (the Primitive* nodes, excluded from the
 * start) or when it finished without any `progress` message in under 50 ms (excluded once it
 * finishes). Each finished effective node counts 1; the running one counts `step / total_steps`.
 * Moving a node out of the denominator only when it has finished, and only when it contributed
 * nothing to the numerator, can only raise the ratio; a node's step fraction is replaced by a full
 * 1 when it finishes. So the ratio never falls, and a max() guard keeps it so against odd event
 * orders (a missed message, a node run twice). It stays within 0–99 until the prompt succeeds.
 */
import type { EngineMessage } from '../engine/engine-messages.js';
import type { ApiGraph, ApiNode } from '../engine/engine-graph.js';
import type { ProgressStatus, ProgressObject } from '../contracts/jobs.contract.js';

export interface ProgressTrackerOptions {
  promptId: string;
  graph: ApiGraph;
  /** Titles to show, by node id; they win over `_meta.title` and the class name. */
  nodeTitles?: Readonly<Record<string, string>>;
  now?: () => number;
}

/** Nodes that finish faster than this without reporting steps are bookkeeping, not work. */
const INSTANT_NODE_MS = 50;

/** Classes that only hand a constant on; known to be instant before they run. */
const INSTANT_CLASSES: ReadonlySet<string> = new Set([
  'PrimitiveInt',
  'PrimitiveFloat',
  'PrimitiveString',
  'PrimitiveStringMultiline',
  'PrimitiveBoolean',
]);

export class ProgressTracker {
  readonly promptId: string;
  private readonly nodes: ReadonlyMap<string, ApiNode>;
  private readonly nodeTitles: Readonly<Record<string, string>>;
  private readonly now: () => number;

  private currentStatus: ProgressStatus = 'pending';
  private failure: string | null = null;
  private ended = false;
  private startedAt: number | null = null;

  private readonly cached = new Set<string>();
  /** Cached or instant: not part of the effective total. */
  private readonly excluded = new Set<string>();
  private readonly done = new Set<string>();
  private effectiveDone = 0;
  private readonly nodeStart = new Map<string, number>();
  private readonly stepped = new Set<string>();
  private current: string | null = null;
  private step = 0;
  private totalSteps = 0;
  private maxPercent = 0;

  private readonly rate = new RollingRate();
  private lastProgressNode: string | null = null;
  private lastProgressValue = 0;
  /** Durations of finished nodes that reported no steps: the basis of the ETA for such nodes. */
  private plainNodeMs = 0;
  private plainNodeCount = 0;

  private outputs: Readonly<Record<string, unknown>> = {};
  private readonly resolved = new Map<string, string | null>();

  constructor(opts: ProgressTrackerOptions) {
    this.promptId = opts.promptId;
    this.nodes = new Map(Object.entries(opts.graph));
    this.nodeTitles = opts.nodeTitles ?? {};
    this.now = opts.now ?? Date.now;
    for (const [id, node] of this.nodes) if (INSTANT_CLASSES.has(node.class_type)) this.excluded.add(id);
  }

  /** The prompt's status as the progress object reports it. */
  get status(): ProgressStatus {
    return this.currentStatus;
  }

  /** `[NodeType] message` after `execution_error`, else null. */
  get error(): string | null {
    return this.failure;
  }

  /** True after `executing {node: null}`: the engine has written the history entry. */
  get historyReady(): boolean {
    return this.ended;
  }

  /** Feed one engine message; messages of other prompts and unknown node ids are ignored. */
  handle(msg: EngineMessage): void {
    if (msg.type === 'other' || msg.type === 'status' || msg.type === 'feature_flags') return;
    // The reconnect copy of `executing` carries no prompt id: it cannot be attributed safely.
    if (msg.data.prompt_id !== this.promptId) return;
    const terminal = this.isTerminal();
    // Once the prompt has ended only its end of execution and its outputs still count.
    if (terminal && msg.type !== 'executing' && msg.type !== 'executed') return;
    switch (msg.type) {
      case 'execution_start':
        this.ensureRunning();
        break;
      case 'execution_cached':
        this.ensureRunning();
        for (const raw of msg.data.nodes) {
          const id = this.resolve(raw);
          if (id === null || this.done.has(id)) continue;
          this.cached.add(id);
          this.excluded.add(id);
        }
        this.updatePercent();
        break;
      case 'executing':
        if (msg.data.node === null) {
          this.ended = true;
          // Success, error and interruption all precede this; if none was seen, trust the engine's "done".
          if (!terminal) this.complete();
          break;
        }
        if (!terminal) this.enter(this.resolve(msg.data.node, msg.data.display_node));
        break;
      case 'progress':
        this.onProgress(msg.data.node ?? null, msg.data.value, msg.data.max);
        break;
      case 'progress_state':
        for (const key in msg.data.nodes) {
          const state = msg.data.nodes[key];
          if (state?.state !== 'finished') continue;
          const id = this.resolve(state.node_id ?? key, state.display_node_id);
          if (id !== null) this.markDone(id);
        }
        this.updatePercent();
        break;
      case 'executed':
        if (this.resolve(msg.data.node, msg.data.display_node) !== null) {
          // Replaced, not mutated: a snapshot handed out earlier keeps its own map.
          this.outputs = { ...this.outputs, [msg.data.node]: msg.data.output };
        }
        break;
      case 'execution_success':
        this.complete();
        break;
      case 'execution_error':
        this.current = this.resolve(msg.data.node_id) ?? this.current;
        this.failure = `[${msg.data.node_type}] ${msg.data.exception_message}`;
        this.currentStatus = 'error';
        break;
      case 'execution_interrupted':
        this.current = this.resolve(msg.data.node_id ?? null) ?? this.current;
        this.currentStatus = 'interrupted';
        break;
    }
  }

  /** End the prompt from outside (a runner that learned the outcome from `/history`). */
  finish(status: 'completed' | 'error' | 'interrupted', error: string | null = null): void {
    if (this.isTerminal()) return;
    if (status === 'completed') this.complete();
    else {
      this.currentStatus = status;
      this.failure = error;
    }
  }

  /** The progress object as the spec lists it. */
  snapshot(): ProgressObject {
    const node = this.current === null ? undefined : this.nodes.get(this.current);
    const completed = this.currentStatus === 'completed';
    // Once per snapshot (one per progress message): the ETA is based on it too.
    const rate = this.rate.rate();
    return {
      status: this.currentStatus,
      node_title: node && this.current !== null ? (this.nodeTitles[this.current] ?? node._meta?.title ?? node.class_type) : null,
      node_type: node?.class_type ?? null,
      step: this.step,
      total_steps: this.totalSteps,
      nodes_done: this.done.size,
      total_nodes: this.nodes.size,
      effective_total: this.effectiveTotal(),
      cached_count: this.cached.size,
      percent: completed ? 100 : Math.min(99, Math.floor(this.maxPercent)),
      eta_seconds: completed ? 0 : this.currentStatus === 'running' ? this.eta(rate) : null,
      step_rate: rate,
      node_outputs: this.outputs,
    };
  }

  private isTerminal(): boolean {
    return this.currentStatus === 'completed' || this.currentStatus === 'error' || this.currentStatus === 'interrupted';
  }

  private ensureRunning(): void {
    if (this.currentStatus === 'pending') this.currentStatus = 'running';
    this.startedAt ??= this.now();
  }

  private complete(): void {
    if (this.current !== null) this.markDone(this.current);
    this.current = null;
    this.step = 0;
    this.totalSteps = 0;
    this.currentStatus = 'completed';
  }

  /** A node starts: the previous one has finished. */
  private enter(id: string | null): void {
    this.ensureRunning();
    if (id === null || id === this.current) return;
    if (this.current !== null) this.markDone(this.current);
    this.current = id;
    this.nodeStart.set(id, this.now());
    this.step = 0;
    this.totalSteps = 0;
    this.updatePercent();
  }

  private onProgress(rawNode: string | null, value: number, max: number): void {
    const id = rawNode === null ? this.current : this.resolve(rawNode);
    if (id === null) return;
    this.enter(id);
    this.stepped.add(id);
    const delta = id === this.lastProgressNode && value >= this.lastProgressValue ? value - this.lastProgressValue : value;
    if (delta > 0) this.rate.add(this.now(), delta);
    this.lastProgressNode = id;
    this.lastProgressValue = value;
    this.step = Math.max(0, value);
    this.totalSteps = Math.max(0, max);
    this.updatePercent();
  }

  private markDone(id: string): void {
    if (this.cached.has(id) || this.done.has(id)) return;
    this.done.add(id);
    const started = this.nodeStart.get(id);
    if (started !== undefined && !this.stepped.has(id)) {
      const ms = this.now() - started;
      this.plainNodeMs += ms;
      this.plainNodeCount += 1;
      if (ms < INSTANT_NODE_MS) this.excluded.add(id);
    }
    if (!this.excluded.has(id)) this.effectiveDone += 1;
  }

  private effectiveTotal(): number {
    return Math.max(0, this.nodes.size - this.excluded.size);
  }

  /** Step fraction of the running node, when it counts toward the effective total. */
  private currentFraction(): number {
    const id = this.current;
    if (id === null || this.done.has(id) || this.excluded.has(id) || this.totalSteps <= 0) return 0;
    return Math.min(1, this.step / this.totalSteps);
  }

  private updatePercent(): void {
    const total = this.effectiveTotal();
    if (total <= 0) return;
    const raw = ((this.effectiveDone + this.currentFraction()) * 100) / total;
    if (raw > this.maxPercent) this.maxPercent = raw;
  }

  /**
   * Seconds left: the running sampler's remaining steps at the rolling rate, plus the effective
   * nodes still to run at the mean duration of the step-less nodes seen so far. A rough figure,
   * null until there is a rate or a finished node to base it on.
   */
  private eta(rate: number | null): number | null {
    const perNodeMs = this.plainNodeCount > 0 ? this.plainNodeMs / this.plainNodeCount : null;
    const id = this.current;
    const runningCounts = id !== null && !this.done.has(id) && !this.excluded.has(id);
    const remainingNodes = Math.max(0, this.effectiveTotal() - this.effectiveDone - (runningCounts ? 1 : 0));
    let seconds: number;
    if (id !== null && this.totalSteps > 0 && this.stepped.has(id) && rate !== null) {
      seconds = Math.max(0, this.totalSteps - this.step) / rate + (remainingNodes * (perNodeMs ?? 0)) / 1000;
    } else if (perNodeMs !== null) {
      const elapsed = runningCounts ? this.now() - (this.nodeStart.get(id) ?? this.now()) : 0;
      const currentLeft = runningCounts ? Math.max(0, perNodeMs - elapsed) : 0;
      seconds = (currentLeft + remainingNodes * perNodeMs) / 1000;
    } else {
      return null;
    }
    return Math.round(seconds);
  }

  /**
   * Map an engine node id onto the graph (the engine reports expanded and subgraph nodes by ids the
   * submitted graph never had): the id itself, its display node, or the
   * nearest ancestor of an expansion (`406.0.0.428` → `406`) or subgraph (`10:5:3` → `10`) id.
   */
  private resolve(id: string | null | undefined, display?: string | null): string | null {
    if (id === null || id === undefined) return null;
    if (this.nodes.has(id)) return id;
    if (display && this.nodes.has(display)) return display;
    let hit = this.resolved.get(id);
    if (hit === undefined) {
      hit = null;
      let cut = id;
      for (let i = lastSeparator(cut); i > 0; i = lastSeparator(cut)) {
        cut = cut.slice(0, i);
        if (this.nodes.has(cut)) {
          hit = cut;
          break;
        }
      }
      this.resolved.set(id, hit);
    }
    return hit;
  }
}

function lastSeparator(id: string): number {
  return Math.max(id.lastIndexOf('.'), id.lastIndexOf(':'));
}

/**
 * Rolling step rate: steps per second over the last few seconds of `progress` messages. A short
 * window follows a sampler that speeds up once its model is loaded, and a cumulative counter
 * survives node changes (a second sampler restarts `value` at 1).
 */
export class RollingRate {
  private readonly times: number[] = [];
  private readonly counts: number[] = [];
  private total = 0;

  constructor(private readonly windowMs = 5_000) {}

  /** Record `steps` more steps done at time `at` (ms). */
  add(at: number, steps: number): void {
    this.total += steps;
    this.times.push(at);
    this.counts.push(this.total);
    // Keep two samples at least, so a stall longer than the window still yields the last rate.
    while (this.times.length > 2 && this.times[1]! <= at - this.windowMs) {
      this.times.shift();
      this.counts.shift();
    }
  }

  /** Steps per second over the window, or null with fewer than two samples. */
  rate(): number | null {
    const n = this.times.length;
    if (n < 2) return null;
    const dt = this.times[n - 1]! - this.times[0]!;
    const steps = this.counts[n - 1]! - this.counts[0]!;
    if (dt <= 0 || steps <= 0) return null;
    return (steps * 1000) / dt;
  }
}
