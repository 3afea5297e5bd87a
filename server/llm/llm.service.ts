/**
 * The local LLM server (spec "LLM" and "LLM server states"): start with a model and the stored
 * configuration merged with the request, stop, status, configuration, and the chat proxy. Beyond
 * the spec (README "LLM"): `LLM_IDLE_MINUTES` stops an idle server and the next chat starts it
 * again with the same model and configuration; `LLM_GPU_POLICY=yield` parks the server while
 * image jobs run on the engine and brings it back when the queue is empty.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DomainError, notFound } from '../domain-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import type { ChildState } from '../process/supervisor.js';
import { openChat, type ChatAnswer } from './chat-proxy.js';
import type { LlmConfigStore } from './llm-config.store.js';
import type { LlmConfig } from '../contracts/llm.contract.js';
import { LlmServer, type LlmLaunch, type LlmServerOptions } from './llm-server.js';
import { promptHelpMessages } from './prompt-help.js';

export interface LlmServiceDeps {
  server: LlmServerOptions;
  store: LlmConfigStore;
  events: EventBus;
  logger: Logger;
  idleMinutes: number;
  gpuPolicy: 'share' | 'yield';
  /** `n_gpu_layers` for a model when the configuration says automatic (-1): the fit estimate. */
  autoLayers?: (model: string, ctxSize: number) => Promise<number>;
}

/** Request fields that override the stored sampling configuration per chat. */
const SAMPLING: Array<[request: string, config: keyof LlmConfig]> = [
  ['temperature', 'temp'],
  ['top_p', 'top_p'],
  ['top_k', 'top_k'],
  ['repeat_penalty', 'repeat_penalty'],
];

export class LlmService {
  private readonly server: LlmServer;
  /** What to bring back after an idle stop or a park. */
  private resumable: { launch: LlmLaunch; why: 'idle' | 'parked' } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private lastCrash: string | null = null;
  private engineBusy = false;
  private transition: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: LlmServiceDeps) {
    this.server = new LlmServer(deps.server, (state, launch) => this.crashed(state, launch));
  }

  /** Whether the LLM server program in use exists. */
  binaryExists(): boolean {
    return this.server.binaryExists();
  }

  get port(): number {
    return this.deps.server.port;
  }

  /** `GET /api/admin/llm/status` (plus `parked`, `idle_stopped`, `last_error`). */
  async status(): Promise<Record<string, unknown>> {
    const running = this.server.running;
    return {
      running,
      active_model: running ? (this.server.launch?.model ?? null) : null,
      config: this.deps.store.get(),
      health: running ? await this.health() : null,
      port: this.port,
      binary_exists: this.server.binaryExists(),
      parked: this.resumable?.why === 'parked',
      idle_stopped: this.resumable?.why === 'idle',
      last_error: this.lastCrash,
      // Whether "Improve prompt" can answer (running, or a runtime and a model to start it with):
      // the Run page hides its buttons otherwise instead of a 409 under every field.
      can_improve: running || this.resumable !== null || (this.server.binaryExists() && this.helpModel() !== null),
    };
  }

  /** `POST /api/admin/llm/start`. */
  start(model: string, patch: Partial<LlmConfig>): Promise<{ status: 'started'; model: string; port: number }> {
    // A plain file name of a file in the models folder: not `..`, `.`, a sub-folder or a path.
    const file = path.join(this.deps.server.modelsDir, model);
    if (path.basename(model) !== model || model === '..' || model === '.' || !isFile(file)) throw notFound(`Model not on disk: ${model}`);
    const launch = { model, config: { ...this.deps.store.get(), ...patch } };
    return this.serialize(async () => {
      this.resumable = null;
      await this.launch(launch);
      return { status: 'started' as const, model, port: this.port };
    });
  }

  /** `POST /api/admin/llm/stop`. */
  stop(): Promise<{ status: 'stopped' | 'already_stopped' }> {
    return this.serialize(async () => {
      const wasRunning = this.server.running;
      this.resumable = null;
      this.clearIdle();
      await this.server.stop();
      if (wasRunning) this.deps.events.emit('llm.state', 'info', 'LLM server stopped', {});
      return { status: wasRunning ? ('stopped' as const) : ('already_stopped' as const) };
    });
  }

  /** `POST /api/admin/llm/config`: saved, the running server is left as it is. */
  async saveConfig(patch: Partial<LlmConfig>): Promise<{ status: 'saved'; config: LlmConfig }> {
    return { status: 'saved', config: await this.deps.store.save(patch) };
  }

  /**
   * `POST /api/admin/llm/chat`: a JSON answer, or a stream the caller relays; `signal` (the client
   * left) aborts the upstream request. The idle timer runs again once the answer is over.
   */
  async chat(body: Record<string, unknown>, signal?: AbortSignal): Promise<ChatAnswer> {
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw new DomainError('invalid', 'messages is required (a non-empty array of {role, content})');
    if (!this.server.running) await this.wakeForChat();
    const stored = this.deps.store.get();
    const upstream: Record<string, unknown> = { ...body, stream: body.stream === true };
    for (const [field, key] of SAMPLING) if (upstream[field] === undefined) upstream[field] = stored[key];
    if (upstream.stream) upstream.stream_options = { include_usage: true };
    this.clearIdle();
    const answer = await openChat(this.server.url, upstream, signal).catch((err: unknown) => {
      this.armIdle();
      throw err;
    });
    if (answer.kind === 'json') {
      this.armIdle();
      return answer;
    }
    return { kind: 'stream', chunks: this.armIdleAfter(answer.chunks) };
  }

  private async *armIdleAfter(chunks: AsyncIterable<string | Buffer>): AsyncGenerator<string | Buffer> {
    try {
      yield* chunks;
    } finally {
      this.armIdle();
    }
  }

  /**
   * "Improve prompt" (Run page): a streamed chat with the prompt-help system prompt. The server is
   * started on demand with the last model used (else the smallest model on disk) unless the GPU
   * yield policy holds it back for image jobs; without a runtime or a model it says what to do.
   */
  async improvePrompt(text: string, kind: 'positive' | 'negative', signal?: AbortSignal): Promise<ChatAnswer> {
    if (!this.server.running) await this.startForHelp();
    return this.chat({ messages: promptHelpMessages(text, kind), stream: true, temperature: 0.7, max_tokens: 200 }, signal);
  }

  private async startForHelp(): Promise<void> {
    if (this.deps.gpuPolicy === 'yield' && this.engineBusy) throw new DomainError('unavailable', 'The LLM is held back while image jobs run on the engine (LLM_GPU_POLICY=yield): try again when they finish');
    if (this.resumable) return this.wakeForChat();
    if (!this.server.binaryExists()) throw new DomainError('conflict', 'No LLM runtime is installed: install llama.cpp on the LLM page first');
    const model = this.helpModel();
    if (!model) throw new DomainError('conflict', 'No LLM model is downloaded: download one on the LLM page first');
    await this.serialize(async () => {
      if (this.server.running) return;
      await this.launch({ model, config: this.deps.store.get() });
    });
  }

  /** The model last started if it is still on disk, else the smallest `.gguf` in the models folder. */
  private helpModel(): string | null {
    const dir = this.deps.server.modelsDir;
    const last = this.deps.store.internal('_last_model');
    if (typeof last === 'string' && isFile(path.join(dir, last))) return last;
    let files: string[];
    try {
      files = fs.readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.gguf') && !/mmproj/i.test(f) && isFile(path.join(dir, f)));
    } catch {
      return null;
    }
    return files.sort((a, b) => fs.statSync(path.join(dir, a)).size - fs.statSync(path.join(dir, b)).size)[0] ?? null;
  }

  /** The LLM catalog deletes a model file: stop the server first when it is the active one. */
  async beforeModelDelete(file: string): Promise<void> {
    if (this.server.launch?.model === file || this.resumable?.launch.model === file) await this.stop();
  }

  /**
   * The engine's queue changed (yield policy): park while image jobs run, resume when it is empty.
   * Resolves once the change has been acted on (at once when the policy has nothing to do).
   */
  engineQueue(busy: boolean): Promise<void> {
    if (this.deps.gpuPolicy !== 'yield' || busy === this.engineBusy) return Promise.resolve();
    this.engineBusy = busy;
    return this.serialize(async () => {
      if (busy && this.server.running && this.server.launch) {
        this.resumable = { launch: this.server.launch, why: 'parked' };
        this.clearIdle();
        await this.server.stop();
        this.deps.events.emit('llm.parked', 'info', 'LLM server parked while image jobs run on the engine', { model: this.resumable.launch.model });
      } else if (!busy && this.resumable?.why === 'parked') {
        const { launch } = this.resumable;
        this.resumable = null;
        await this.launch(launch);
        this.deps.events.emit('llm.resumed', 'info', 'LLM server back after the image jobs finished', { model: launch.model });
      }
    }).catch((err: unknown) => this.deps.logger.error('LLM park/resume failed', err));
  }

  /** The active runtime changed: a running server restarts on the new binary with the same model. */
  async runtimeChanged(): Promise<void> {
    const launch = this.server.launch;
    if (!this.server.running || !launch) return;
    await this.serialize(() => this.launch(launch));
  }

  /** Stop the server (Studio shutdown). */
  async close(): Promise<void> {
    this.clearIdle();
    await this.server.stop();
  }

  private async wakeForChat(): Promise<void> {
    const resumable = this.resumable;
    if (resumable?.why === 'idle') {
      await this.serialize(async () => {
        if (this.server.running) return;
        this.resumable = null;
        await this.launch(resumable.launch);
      });
      return;
    }
    if (resumable?.why === 'parked') throw new DomainError('unavailable', 'The LLM server is parked while image jobs run on the engine; it comes back when they finish');
    throw new DomainError('unavailable', 'The LLM server is not running: start it with a model first');
  }

  private async launch(launch: LlmLaunch): Promise<void> {
    this.lastCrash = null;
    try {
      const auto = launch.config.n_gpu_layers === -1 && this.deps.autoLayers ? await this.deps.autoLayers(launch.model, launch.config.ctx_size) : undefined;
      await this.server.start(launch, auto);
    } catch (err) {
      const message = (err as Error).message;
      this.deps.events.emit('llm.state', 'error', `LLM server failed to start with ${launch.model}`, { model: launch.model, error: message.slice(-1000) });
      throw new DomainError('failed', `LLM server failed to start: ${message}`);
    }
    await this.deps.store.save({ _last_model: launch.model });
    this.deps.events.emit('llm.state', 'success', `LLM server running with ${launch.model}`, { model: launch.model, port: this.port });
    this.armIdle();
  }

  private crashed(state: ChildState, launch: LlmLaunch): void {
    this.clearIdle();
    this.lastCrash = `${state.lastError ?? 'exited'}${state.stderrTail.length ? `\n${state.stderrTail.slice(-8).join('\n')}` : ''}`;
    this.deps.events.emit('llm.crashed', 'error', `The LLM server crashed while running ${launch.model}`, {
      model: launch.model,
      error: state.lastError,
      stderr_tail: state.stderrTail.slice(-10),
    });
  }

  private armIdle(): void {
    this.clearIdle();
    if (this.deps.idleMinutes <= 0 || !this.server.running) return;
    this.idleTimer = setTimeout(() => {
      const launch = this.server.launch;
      if (!launch) return;
      void this.serialize(async () => {
        this.resumable = { launch, why: 'idle' };
        await this.server.stop();
        this.deps.events.emit('llm.state', 'info', `LLM server stopped after ${this.deps.idleMinutes} idle minute(s); the next chat starts it again`, { model: launch.model });
      });
    }, this.deps.idleMinutes * 60_000);
    this.idleTimer.unref();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Starts, stops, parks and resumes run one at a time. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    const next = this.transition.then(work);
    this.transition = next.catch(() => undefined);
    return next;
  }

  private async health(): Promise<unknown> {
    try {
      const res = await fetch(`${this.server.url}/health`, { signal: AbortSignal.timeout(2_000) });
      return (await res.json()) as unknown;
    } catch {
      return null;
    }
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
