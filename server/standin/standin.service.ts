/**
 * The stand-in's queue worker and prompt intake: validates and queues `/prompt` bodies, runs one
 * prompt at a time, writes history, and sends the `status` / `executing null` frames that close
 * each prompt, in the engine's order (history is written before them).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../http/contained-path.js';
import { annotatedPath } from '../engine/engine-paths.js';
import { PromptExecutor, type ExecutorDeps } from './executor.service.js';
import { HistoryStore } from './history.store.js';
import { validatePrompt, type NodeLookup } from '../engine/prompt-rules/validator.js';
import { pyStr } from '../engine/prompt-rules/py-format.js';
import { PromptQueue } from './queue.store.js';
import type { ExtraData, QueueItem } from './standin.types.js';
import { isRecord } from '../engine/prompt-rules/node-inputs.js';

/** A lowercase, hyphenated UUID: what the engine accepts as a client-supplied prompt id. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the executor needs, less the shutdown signal the service owns. */
export type StandinServiceDeps = Omit<ExecutorDeps, 'signal'>;

/** Keys the engine keeps out of /queue and /history (credentials of its paid API nodes). */
const SENSITIVE_EXTRA_KEYS = ['auth_token_comfy_org', 'api_key_comfy_org'];

export class StandinService {
  readonly queue = new PromptQueue();
  readonly history = new HistoryStore();
  private readonly executor: PromptExecutor;
  private readonly shutdown = new AbortController();
  private running: Promise<void> | null = null;

  /**
   * The catalog as `/prompt` checks it: a model file missing from the folders is no refusal (the
   * real engine refuses it). Studio promises that the stand-in runs a not-ready workflow anyway and
   * answers with a test card; `/object_info` still lists only the files there are.
   */
  private readonly lenientCatalog: NodeLookup;

  constructor(private readonly deps: StandinServiceDeps) {
    this.executor = new PromptExecutor({ ...deps, signal: this.shutdown.signal });
    const catalog = deps.catalog;
    this.lenientCatalog = { get: (c) => catalog.get(c), live: (c) => catalog.live(c), checksFileLists: false };
  }

  /** `POST /prompt`: the status code and body the engine would answer. */
  submit(body: Record<string, unknown>): { status: number; body: unknown } {
    // The engine takes a number before looking at the prompt, so refused prompts use one up too.
    const number = this.queue.nextNumber(body);
    if (!Object.hasOwn(body, 'prompt')) return refusal('no_prompt', 'No prompt provided', 'No prompt provided');
    if (body.prompt_id !== undefined && !(typeof body.prompt_id === 'string' && CANONICAL_UUID.test(body.prompt_id))) {
      // Since 0.25 a supplied id must be a canonical UUID (recorded in 16-prompt-errors).
      return refusal(
        'invalid_prompt_id',
        'prompt_id must be a valid UUID',
        'prompt_id must be a UUID string in canonical lowercase hyphenated form; omit it to let the server generate one',
      );
    }
    const promptId = body.prompt_id === undefined ? randomUUID() : pyStr(body.prompt_id);
    const result = validatePrompt(body.prompt, { catalog: this.lenientCatalog, fileExists: (name) => this.inputFileExists(name) }, body.partial_execution_targets);
    if (!result.ok) {
      this.deps.logger.warn(`stand-in: invalid prompt: ${result.error.type}: ${result.error.message}`);
      return { status: 400, body: { error: result.error, node_errors: result.nodeErrors } };
    }
    const extraData: ExtraData = isRecord(body.extra_data) ? { ...body.extra_data } : {};
    if (Object.hasOwn(body, 'client_id')) extraData.client_id = body.client_id;
    for (const key of SENSITIVE_EXTRA_KEYS) delete extraData[key];
    extraData.create_time = Date.now();
    this.queue.put([number, promptId, result.graph, extraData, result.outputs]);
    this.deps.logger.info(`stand-in: got prompt ${promptId}`);
    this.broadcastStatus();
    setImmediate(() => this.pump());
    return { status: 200, body: { prompt_id: promptId, number, node_errors: result.nodeErrors } };
  }

  /** `POST /interrupt`: with a prompt id, only when that prompt is the one running. */
  interrupt(promptId: string | null): void {
    const current = this.queue.current;
    if (!current) return;
    if (promptId !== null && current[1] !== promptId) {
      this.deps.logger.info(`stand-in: prompt ${promptId} is not running, interrupt ignored`);
      return;
    }
    this.executor.interrupt();
  }

  /** `POST /queue {delete}`: pending prompts only. */
  deleteQueued(ids: readonly string[]): void {
    if (this.queue.delete(ids)) this.broadcastStatus();
  }

  /** `POST /queue {clear:true}`. */
  clearQueue(): void {
    this.queue.clear();
    this.broadcastStatus();
  }

  /** A socket connected: re-send the running node to its client (engine behaviour on reconnect). */
  onConnect(sid: string): void {
    this.executor.resendCurrentNode(sid);
  }

  /** Stop the worker: the running prompt is abandoned (no history), pending ones are dropped. */
  async close(): Promise<void> {
    this.shutdown.abort();
    this.queue.clear();
    await this.running;
  }

  private pump(): void {
    if (this.shutdown.signal.aborted || this.running) return;
    const item = this.queue.take();
    if (!item) return;
    this.broadcastStatus();
    this.running = this.run(item).finally(() => {
      this.running = null;
      setImmediate(() => this.pump());
    });
  }

  private async run(item: QueueItem): Promise<void> {
    const [, promptId, , extraData] = item;
    const started = Date.now();
    try {
      const entry = await this.executor.execute(item);
      this.history.set(promptId, entry);
      this.deps.logger.info(`stand-in: prompt ${promptId} ${entry.status.status_str} in ${((Date.now() - started) / 1000).toFixed(2)} seconds`);
    } catch (err) {
      if (!this.shutdown.signal.aborted) this.deps.logger.error(`stand-in: prompt ${promptId} crashed`, err);
    }
    this.queue.finish();
    if (this.shutdown.signal.aborted) return;
    this.broadcastStatus();
    const clientId = typeof extraData.client_id === 'string' ? extraData.client_id : null;
    if (clientId !== null) this.deps.hub.send('executing', { node: null, prompt_id: promptId }, clientId);
  }

  private broadcastStatus(): void {
    this.deps.hub.send('status', { status: { exec_info: { queue_remaining: this.queue.remaining() } } }, null);
  }

  /** LoadImage's check: the name (subfolders and `[output]` annotations allowed) is an existing file. */
  private inputFileExists(name: string): boolean {
    const { name: rel, dir } = annotatedPath(name, this.deps.dirs, 'input');
    if (!dir || rel === '') return false;
    const file = path.resolve(dir, rel);
    // The engine would follow `../`; the stand-in keeps to its folders.
    return isInside(dir, file) && fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
  }
}

/** The engine's 400 for a `/prompt` body it refuses before validating the graph. */
function refusal(type: string, message: string, details: string): { status: number; body: unknown } {
  return { status: 400, body: { error: { type, message, details, extra_info: {} }, node_errors: {} } };
}
