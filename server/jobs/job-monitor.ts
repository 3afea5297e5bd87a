/**
 * Follows running jobs: routes the engine's WebSocket messages to one ProgressTracker per
 * prompt, relays progress and preview frames to Studio clients, and finishes a job from the
 * engine's history once `executing {node: null}` arrives. After a socket reconnect, and for jobs
 * silent for a while, the engine's queue and history are checked: that covers messages lost while
 * the socket was down (nothing is replayed) and an engine that restarted and forgot the job. A job
 * the engine keeps listing as running but says nothing about for `stallMs` is marked stalled (the
 * stall watchdog): an engine stuck in a node would otherwise leave it `running` at 0 % for good.
 */
import type { EngineClient } from '../engine/engine.client.js';
import { parseHistoryOutputs, primaryOutput } from '../engine/engine-outputs.js';
import type { HistoryEntry } from '../engine/engine-protocol.js';
import type { EngineMessage, EnginePreview } from '../engine/engine-messages.js';
import type { EngineSocket } from '../engine/engine-socket.js';
import { encodePreviewHead } from '../contracts/preview-frame.js';
import { ownerAudience, type Audience, type WsHub } from '../http/ws-hub.js';
import type { Logger } from '../logging.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import type { OutputCollector } from './output-collector.js';
import type { JobRecord, ProgressObject } from '../contracts/jobs.contract.js';
import type { JobStore } from './job.store.js';
import type { JobLifecycle } from './job-lifecycle.js';
import type { StallReason } from './job-transitions.js';
import { ProgressTracker } from './progress-tracker.js';

export interface JobMonitorDeps {
  engine: EngineClient;
  socket: EngineSocket;
  jobs: JobStore;
  /** The one writer of job status. */
  lifecycle: JobLifecycle;
  hub: WsHub;
  logger: Logger;
  /** How often silent jobs are checked against `/history`. */
  pollMs?: number;
  /** Copies a finished job's outputs into its folder when the engine's folders are its own. */
  collector?: OutputCollector;
  /** A running job silent this long is stalled and cancelled on the engine (JOB_STALL_MINUTES); 0 or unset: never. */
  stallMs?: number;
}

interface Tracked {
  tracker: ProgressTracker;
  lastMessageAt: number;
  finishing: boolean;
  /** The job has been marked `running` (or found so). */
  started: boolean;
  /**
   * Set between `track(…, {held: true})` and `release()`: the engine may start a prompt (and send
   * its first events) before `POST /prompt` has answered, and clients must see `job.queued` first.
   */
  held: boolean;
  /** A message of the prompt arrived. */
  seen: boolean;
  /** When the engine's queue first listed the prompt as running (null: not yet seen so). */
  runningSince: number | null;
}

export class JobMonitor {
  private readonly tracked = new Map<string, Tracked>();
  private readonly offs: Array<() => void> = [];
  private poll: NodeJS.Timeout | null = null;

  constructor(private readonly deps: JobMonitorDeps) {}

  start(): void {
    const { socket } = this.deps;
    this.offs.push(socket.onMessage((msg) => this.onMessage(msg)));
    this.offs.push(socket.onPreview((preview) => this.onPreview(preview)));
    // Every open, the first one too: a prompt followed again after a restart (reconciliation runs
    // when the engine answers, maybe before this socket is open) may have finished unheard.
    let open = socket.state.status === 'open';
    this.offs.push(
      socket.onStateChange((state) => {
        const now = state.status === 'open';
        // After a socket gap (or before its first open): anything the engine finished (or lost) meanwhile is settled here too.
        if (now && !open) void this.recheck([...this.tracked.keys()]);
        open = now;
      }),
    );
    const pollMs = this.deps.pollMs ?? 3000;
    this.poll = setInterval(() => void this.checkSilent(pollMs * 2), pollMs);
    this.poll.unref();
  }

  stop(): void {
    for (const off of this.offs.splice(0)) off();
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
  }

  /**
   * Follow a prompt. The runner tracks before submitting, so no early message is missed, with
   * `held` so nothing is announced until `release()`; reconciliation tracks a prompt already queued.
   */
  track(promptId: string, graph: ApiGraph, options: { held?: boolean; running?: boolean } = {}): void {
    const tracker = new ProgressTracker({ promptId, graph });
    if (options.running) tracker.handle({ type: 'execution_start', data: { prompt_id: promptId } });
    this.tracked.set(promptId, {
      tracker,
      lastMessageAt: Date.now(),
      finishing: false,
      started: false,
      held: options.held ?? false,
      seen: false,
      runningSince: options.running ? Date.now() : null,
    });
  }

  /** The runner announced the job (`job.queued`): relay what the engine already said about it. */
  release(promptId: string): void {
    const entry = this.tracked.get(promptId);
    if (!entry?.held) return;
    entry.held = false;
    if (entry.seen) this.announce(promptId, entry);
  }

  /** Resolves true once the engine socket is open (false after `timeoutMs`): submit after it, so no event is missed. */
  socketReady(timeoutMs: number): Promise<boolean> {
    return this.deps.socket.whenOpen(timeoutMs);
  }

  untrack(promptId: string): void {
    this.tracked.delete(promptId);
  }

  isTracked(promptId: string): boolean {
    return this.tracked.has(promptId);
  }

  /** The live progress of a tracked prompt. */
  progress(promptId: string): ProgressObject | null {
    return this.tracked.get(promptId)?.tracker.snapshot() ?? null;
  }

  /** Finish a job from an engine history entry; returns its record as it now is. */
  private finishFromHistory(promptId: string, entry: HistoryEntry, trackerError?: string | null): JobRecord | null {
    this.tracked.delete(promptId);
    const files = parseHistoryOutputs(entry);
    const primary = primaryOutput(files);
    const output = primary ? { filename: primary.filename, subfolder: primary.subfolder, type: primary.type ?? 'output' } : null;
    const statusStr = entry.status?.status_str;
    const error = statusStr === 'error' || (statusStr === undefined && trackerError) ? (trackerError ?? historyError(entry)) : null;
    return this.deps.lifecycle.move(promptId, error ? { to: 'error', error, output } : { to: 'completed', output }).job;
  }

  /**
   * Finish a job from its history entry, followed live or ended while nobody watched
   * (reconciliation): its outputs are pulled into the job folder first when the engine's folders
   * are its own.
   */
  async settleFromHistory(promptId: string, entry: HistoryEntry, trackerError?: string | null): Promise<JobRecord | null> {
    await this.collectOutputs(promptId, entry);
    return this.finishFromHistory(promptId, entry, trackerError);
  }

  /** The engine has no record of the job, or it hung: `stalled`; returns the record as it now is. */
  markStalled(promptId: string, reason: StallReason): JobRecord | null {
    this.tracked.delete(promptId);
    return this.deps.lifecycle.move(promptId, { to: 'stalled', reason }).job;
  }

  private onMessage(msg: EngineMessage): void {
    const promptId = (msg.data as { prompt_id?: unknown } | undefined)?.prompt_id;
    const entry = typeof promptId === 'string' ? this.tracked.get(promptId) : undefined;
    if (!entry) return;
    entry.lastMessageAt = Date.now();
    // A message of the prompt means the engine is running it (see `announce`).
    entry.runningSince ??= entry.lastMessageAt;
    entry.seen = true;
    entry.tracker.handle(msg);
    // `progress_state` floods: the matching `progress`/`executing` message carries the news.
    if (entry.held || (msg.type === 'progress_state' && entry.started)) return;
    this.announce(entry.tracker.promptId, entry);
  }

  /** Mark the job started if need be, relay its progress, and finish it once the engine is done. */
  private announce(promptId: string, entry: Tracked): void {
    // Any message of the prompt means the engine took it: `execution_start` is the usual one, but
    // it is lost when the engine socket (re)connects mid-prompt, and the job must not stay `queued`.
    if (!entry.started) {
      entry.started = true;
      // Refused when the record is not `queued` (found running after a restart, or already finished).
      this.deps.lifecycle.move(promptId, { to: 'running' });
    }
    this.deps.hub.broadcast('job.progress', { prompt_id: promptId, progress: entry.tracker.snapshot() }, this.audienceOf(promptId));
    if (entry.tracker.historyReady) void this.finish(promptId);
  }

  private onPreview(preview: EnginePreview): void {
    const promptId = preview.promptId ?? null;
    if (promptId && !this.tracked.has(promptId)) return;
    // The header and the image go into the WebSocket frame as they are: a multi-MB image is copied once.
    this.deps.hub.broadcastBinary(promptId ? this.audienceOf(promptId) : ownerAudience(null), encodePreviewHead({ prompt_id: promptId, node_id: preview.nodeId ?? null, image_type: preview.imageType }), preview.image);
  }

  /** Who may watch a job: its owner and those who see everyone (read each time: one indexed row). */
  private audienceOf(promptId: string): Audience {
    return ownerAudience(this.deps.jobs.get(promptId)?.owner_id);
  }

  /** The engine said the prompt is done: its history is written (it may lag a moment). */
  private async finish(promptId: string): Promise<void> {
    const entry = this.tracked.get(promptId);
    if (!entry || entry.finishing) return;
    entry.finishing = true;
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const history = await this.deps.engine.history(promptId);
        if (history) {
          await this.settleFromHistory(promptId, history, entry.tracker.error);
          return;
        }
      } catch (err) {
        this.deps.logger.warn(`history of ${promptId} not readable yet`, err);
      }
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
    }
    // No history at all (the engine dropped it): finish from what the socket told us.
    this.finishFromHistory(promptId, { outputs: {}, status: { status_str: entry.tracker.error ? 'error' : 'success' } }, entry.tracker.error);
  }

  /** Before a successful job is marked completed, its outputs are in its folder (separate engine folders). */
  private async collectOutputs(promptId: string, history: HistoryEntry): Promise<void> {
    const job = this.deps.jobs.get(promptId);
    if (!job || !this.deps.collector || history.status?.status_str === 'error') return;
    await this.deps.collector.collect(job, parseHistoryOutputs(history), graphOf(history)).catch((err: unknown) => this.deps.logger.warn(`outputs of ${promptId} not copied`, err));
  }

  private async checkSilent(silentMs: number): Promise<void> {
    const now = Date.now();
    await this.recheck([...this.tracked.entries()].filter(([, t]) => now - t.lastMessageAt > silentMs).map(([id]) => id));
  }

  /**
   * Settle prompts the socket said nothing about: in the engine's queue → keep waiting; in its
   * history → finished; in neither → the engine lost it (it restarted faster than its health
   * probe could notice) → `stalled`. The queue is read before the history: the engine moves a
   * prompt from its queue into its history in one step, so one finishing in between is found.
   * Reconciliation asks it too: a prompt it follows from the queue it read may have finished
   * between that read and being tracked, and sent its last message to no one.
   */
  async recheck(ids: readonly string[]): Promise<void> {
    const candidates = ids.filter((id) => this.checkable(id));
    if (candidates.length === 0) return;
    let inQueue: Set<string>;
    let running: string[];
    try {
      const queue = await this.deps.engine.queue();
      running = queue.running;
      inQueue = new Set([...queue.running, ...queue.pending]);
    } catch {
      return; // Engine unreachable: keep waiting; the supervisor's state tells the user.
    }
    this.watchRunning(candidates.filter((id) => running.includes(id)));
    await Promise.all(candidates.filter((id) => !inQueue.has(id)).map((id) => this.checkHistory(id)));
  }

  /**
   * The stall watchdog, for prompts the engine lists as running: silent since it started (or
   * since its last message) for longer than `stallMs` → stalled, and the engine asked to cancel
   * it, so that a retry does not queue behind a prompt that never ends. Time spent waiting in the
   * engine's queue, or with the engine socket down, does not count.
   */
  private watchRunning(ids: string[]): void {
    const stallMs = this.deps.stallMs ?? 0;
    const now = Date.now();
    // Silence only counts while the socket that would carry the messages is open.
    const socket = this.deps.socket.state;
    const listeningSince = socket.status === 'open' ? (socket.openedAt ?? now) : null;
    for (const id of ids) {
      const entry = this.tracked.get(id);
      if (!entry) continue;
      entry.runningSince ??= now;
      if (stallMs <= 0 || listeningSince === null || !this.checkable(id)) continue;
      if (now - Math.max(entry.lastMessageAt, entry.runningSince, listeningSince) < stallMs) continue;
      entry.finishing = true;
      const job = this.markStalled(id, { cause: 'no_progress', minutes: stallMs / 60_000 });
      if (job?.status !== 'stalled') continue;
      this.deps.logger.warn(`job ${id}: no message from the engine for ${Math.round(stallMs / 1000)} s while running; marked stalled and cancelled`);
      this.deps.engine.interrupt(id).catch((err: unknown) => this.deps.logger.warn(`could not cancel the stalled prompt ${id}`, err));
    }
  }

  private checkable(promptId: string): boolean {
    const entry = this.tracked.get(promptId);
    // A held prompt is still being submitted: its end must not be announced before `job.queued`.
    return entry !== undefined && !entry.finishing && !entry.held;
  }

  private async checkHistory(promptId: string): Promise<void> {
    const entry = this.tracked.get(promptId);
    if (!entry) return;
    let history: HistoryEntry | null;
    try {
      history = await this.deps.engine.history(promptId);
    } catch {
      return;
    }
    if (this.tracked.get(promptId) !== entry || !this.checkable(promptId)) return;
    entry.finishing = true;
    if (history) await this.settleFromHistory(promptId, history, entry.tracker.error);
    else this.markStalled(promptId, { cause: 'lost' });
  }
}

/** `[NodeType] message` from the `execution_error` a history entry replays. */
export function historyError(entry: HistoryEntry): string {
  for (const [name, data] of entry.status?.messages ?? []) {
    if (name === 'execution_error') return `[${String(data.node_type ?? 'Engine')}] ${String(data.exception_message ?? 'error')}`.trim();
    if (name === 'execution_interrupted') return `[${String(data.node_type ?? 'Engine')}] Interrupted`;
  }
  return '[Engine] The engine reported an error';
}

/** The graph a history entry ran (`prompt[2]`), when it has one. */
function graphOf(history: HistoryEntry): ApiGraph | undefined {
  const graph = history.prompt?.[2];
  return graph && typeof graph === 'object' && !Array.isArray(graph) ? (graph as ApiGraph) : undefined;
}
