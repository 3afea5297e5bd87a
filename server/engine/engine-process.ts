/**
 * The engine as Studio sees it, whatever the mode: a supervised stand-in, a supervised real
 * engine (managed), or someone else's engine we only watch (external). One state shape for all.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config, EngineMode } from '../config.js';
import type { Logger } from '../logging.js';
import { ChildSupervisor, type ChildState, type ChildStatus, type SupervisorOptions } from '../process/supervisor.js';
import type { EngineStateMessage } from '../contracts/ws.contract.js';
import { readEngineChoice } from '../config/engine-choice.js';
import { checkTorch } from '../gpu/index.js';
import { extraModelPathsFile, managedLaunch, standinLaunch, type EngineLaunch } from './engine-launch.js';
import { EngineWatch, type WatchState } from './engine-watch.js';
import { endOwnOrphan } from './engine-orphan.js';
import { forgetEngineChild, recordEngineChild } from '../process/child-record.js';
import { writeExtraModelPaths } from './extra-model-paths.js';

export type EngineStatus = ChildStatus | 'unreachable';

export interface EngineState {
  mode: EngineMode;
  status: EngineStatus;
  url: string;
  pid: number | null;
  restarts: number;
  lastError: string | null;
  stderrTail: string[];
  /** While `restarting`: the backoff before the next attempt. */
  restartDelayMs: number | null;
}

export interface EngineProcessDeps {
  config: Config;
  logger: Logger;
  /**
   * The environment a managed engine inherits (undefined: this process's) and the base of the
   * stand-in's. Pass it under Electron: the stand-in only gets this plus ELECTRON_RUN_AS_NODE.
   */
  env?: NodeJS.ProcessEnv;
  /** Test knobs (intervals, timeouts, backoff) applied over the mode's defaults. */
  supervisorOverrides?: Partial<SupervisorOptions>;
  /** External mode: delay between health probes (default 5000). */
  externalProbeIntervalMs?: number;
  /** The log file's name under `logs/` (default `engine.log`; the pool's GPU engines have their own). */
  logName?: string;
  /** The supervisor's name in logs (default `engine`). */
  name?: string;
}

/** The engine's lifecycle in any mode, with one visible state. */
export class EngineProcess {
  /** The engine's base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #supervisor: ChildSupervisor | null = null;
  readonly #watch: EngineWatch | null = null;
  readonly #env: NodeJS.ProcessEnv;
  /** Whether the Python's torch has CUDA (undefined: not asked yet; null: no answer); false puts `--cpu` on every start's command line. */
  #cuda: boolean | null | undefined;

  constructor(deps: EngineProcessDeps) {
    const { config, logger } = deps;
    this.#config = config;
    this.#logger = logger;
    this.url = `http://127.0.0.1:${config.engine.port}`;
    // Undefined means "inherit" for the supervisor; the CUDA question is asked the same way.
    this.#env = deps.env ?? process.env;
    const healthUrl = `${this.url}/system_stats`;
    if (config.engine.mode === 'external') {
      this.#watch = new EngineWatch({ healthUrl, intervalMs: deps.externalProbeIntervalMs, logger });
      return;
    }
    const launch: EngineLaunch =
      config.engine.mode === 'managed' ? managedLaunch(config, { env: deps.env }) : standinLaunch(config, { env: deps.env });
    this.#supervisor = new ChildSupervisor({
      name: deps.name ?? 'engine',
      ...launch,
      healthUrl,
      logFile: path.join(config.paths.logs, deps.logName ?? 'engine.log'),
      logger,
      ...deps.supervisorOverrides,
    });
    // The child is recorded while it runs, so a Studio killed with SIGKILL is followed by one that knows its orphan.
    let recorded: number | null = null;
    this.#supervisor.onStateChange((s) => {
      if (s.pid === recorded) return;
      recorded = s.pid;
      try {
        if (s.pid !== null) recordEngineChild(config.paths.engine, { pid: s.pid, port: config.engine.port });
        else forgetEngineChild(config.paths.engine, config.engine.port);
      } catch (err) {
        logger.warn('engine: the record of its process could not be written', err);
      }
    });
  }

  /** A copy of the current state. */
  get state(): EngineState {
    return this.#stateOf((this.#supervisor ?? this.#watch!).state);
  }

  /** Call `listener` with the new state on every change; returns the unsubscribe. */
  onStateChange(listener: (state: EngineState) => void): () => void {
    if (this.#supervisor) return this.#supervisor.onStateChange((s) => listener(this.#stateOf(s)));
    return this.#watch!.onStateChange((s) => listener(this.#stateOf(s)));
  }

  /**
   * Supervised modes: start the child and resolve once it answers (rejects if that first attempt
   * fails; restarts continue in the background). External: probe once and keep watching.
   */
  async start(): Promise<void> {
    if (this.#watch) return this.#watch.start();
    // A previous Studio's engine still on the port (Studio was killed): its history is kept, then it is ended.
    await endOwnOrphan(this.#config.paths.engine, this.#config.engine.port, this.#logger);
    this.#prepare();
    if (this.#config.engine.mode === 'managed') {
      this.#applyStoredSettings();
      await this.#addCpuFlagWithoutCuda();
    }
    this.#logger.info(`engine: starting (${this.#config.engine.mode}) on ${this.url}`);
    await this.#supervisor!.start();
  }

  /** Stop the child (whole process group) or the watch loop. */
  stop(): Promise<void> {
    return this.#watch ? this.#watch.stop() : this.#supervisor!.stop();
  }

  /** Stop, then start again. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * A managed engine whose Python has no CUDA dies at import ("Torch not compiled with CUDA
   * enabled") unless it gets `--cpu`. Ask the Python once; add the flag by itself and say so.
   * A device flag the user chose (ENGINE_ARGS) is left alone.
   */
  async #addCpuFlagWithoutCuda(): Promise<void> {
    const supervisor = this.#supervisor!;
    if (supervisor.args.some((a) => DEVICE_FLAGS.has(a))) return;
    if (this.#cuda === undefined) {
      // Asked from the engine's folder, where the engine itself runs (a wrapper may depend on it).
      const torch = await checkTorch(this.#config.engine.python, 'cpu', this.#env, { cwd: this.#config.engine.dir ?? undefined, timeoutMs: 60_000 });
      this.#cuda = torch.torch ? torch.cuda : null;
      if (this.#cuda === false) this.#logger.info("engine: its Python's torch has no CUDA (torch.cuda.is_available() is False), so Studio starts it with --cpu");
      else if (this.#cuda === null) this.#logger.warn(`engine: could not ask ${this.#config.engine.python} whether torch has CUDA; starting it without --cpu`);
    }
    if (this.#cuda === false) supervisor.setArgs([...supervisor.args, '--cpu']);
  }

  /**
   * The engine settings stored on the setup page (extra flags, preview method) apply from the next
   * start, an engine restart included: the command line is made again from them each time.
   */
  #applyStoredSettings(): void {
    const { settings } = readEngineChoice(this.#config.paths.root);
    const engine = { ...this.#config.engine, extraArgs: settings.extra_args ?? this.#config.engine.extraArgs, previewMethod: settings.preview_method ?? this.#config.engine.previewMethod };
    this.#supervisor!.setArgs(managedLaunch({ ...this.#config, engine }).args);
  }

  /** Folders the engine writes to, and the managed engine's model paths, before every start. */
  #prepare(): void {
    const { paths, engine } = this.#config;
    for (const dir of [paths.assetsInput, paths.assetsOutput, paths.engine, paths.logs]) {
      fs.mkdirSync(dir, { recursive: true });
    }
    if (engine.mode !== 'external') writeExtraModelPaths(extraModelPathsFile(this.#config), paths.models, engine.extraModelDirs);
  }

  /** One state shape for a child's state and a watch's (which has no process, restarts or stderr). */
  #stateOf(s: WatchState | ChildState): EngineState {
    const child: Partial<ChildState> = 'pid' in s ? s : {};
    return {
      mode: this.#config.engine.mode,
      status: s.status,
      url: this.url,
      pid: child.pid ?? null,
      restarts: child.restarts ?? 0,
      lastError: s.lastError,
      stderrTail: child.stderrTail ?? [],
      restartDelayMs: child.restartDelayMs ?? null,
    };
  }
}

/** Flags that choose the engine's device: with one of these the user decided, not Studio. */
const DEVICE_FLAGS = new Set(['--cpu', '--directml', '--gpu-only', '--highvram', '--normalvram', '--lowvram', '--novram', '--cuda-device', '--oneapi-device-selector']);

/** The engine's state as the UI receives it; a crashed engine brings its last stderr lines. */
export function engineMessage(state: EngineState): EngineStateMessage {
  return {
    mode: state.mode,
    status: state.status,
    restarts: state.restarts,
    lastError: state.lastError,
    errorLines: state.status === 'crashed' ? state.stderrTail.filter((line) => line.trim()).slice(-6) : [],
  };
}
