/**
 * One llama-server process under the shared supervisor: ready when `/health` answers 200 (503
 * while the model loads is waited out up to a bound), no automatic restarts (a server that dies
 * while loading is a failed start, one that dies later is a visible crash), SIGTERM then SIGKILL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ChildSupervisor, type ChildState } from '../process/supervisor.js';
import type { Logger } from '../logging.js';
import type { LlmConfig } from '../contracts/llm.contract.js';

export interface LlmLaunch {
  model: string;
  config: LlmConfig;
}

export interface LlmServerOptions {
  /** Looked up at each start: `LLM_BINARY`, else the active installed build, else the PATH name. */
  binary: () => string;
  port: number;
  modelsDir: string;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs: number;
  logFile: string;
  logger: Logger;
}

export class LlmServer {
  private supervisor: ChildSupervisor | null = null;
  private current: LlmLaunch | null = null;
  private offState: (() => void) | null = null;

  constructor(
    private readonly o: LlmServerOptions,
    /** Called when a running server dies on its own. */
    private readonly onCrash: (state: ChildState, launch: LlmLaunch) => void,
  ) {}

  get launch(): LlmLaunch | null {
    return this.current;
  }

  get running(): boolean {
    return this.supervisor?.state.status === 'running';
  }

  get url(): string {
    return `http://127.0.0.1:${this.o.port}`;
  }

  /** True when the configured binary is a file, or a name found on PATH. */
  binaryExists(): boolean {
    const binary = this.o.binary();
    if (binary.includes('/') || binary.includes('\\')) return fs.existsSync(binary);
    return (this.o.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, binary)));
  }

  /**
   * Start with `launch` (`gpuLayers`: the automatic `n_gpu_layers` worked out for it); rejects with
   * the reason and the last stderr lines when it fails.
   */
  async start(launch: LlmLaunch, gpuLayers?: number): Promise<void> {
    await this.stop();
    const supervisor = new ChildSupervisor({
      name: 'llm',
      command: this.o.binary(),
      args: llmServerArgs(path.join(this.o.modelsDir, launch.model), this.o.port, gpuLayers === undefined ? launch.config : { ...launch.config, n_gpu_layers: gpuLayers }),
      env: this.o.env,
      healthUrl: `${this.url}/health`,
      readyTimeoutMs: this.o.readyTimeoutMs,
      healthIntervalMs: 250,
      logFile: this.o.logFile,
      maxRestarts: 0,
      stopTimeoutMs: 5_000,
      logger: this.o.logger,
    });
    this.supervisor = supervisor;
    this.current = launch;
    try {
      await supervisor.start();
    } catch (err) {
      const tail = supervisor.state.stderrTail.slice(-8).join('\n');
      await supervisor.stop();
      this.supervisor = null;
      this.current = null;
      throw new Error(`${(err as Error).message}${tail ? `\n${tail}` : ''}`, { cause: err });
    }
    this.offState = supervisor.onStateChange((state) => {
      if (state.status === 'crashed' && this.supervisor === supervisor) this.onCrash(state, launch);
    });
  }

  /** Stop the server (no-op when none runs). */
  async stop(): Promise<void> {
    this.offState?.();
    this.offState = null;
    const supervisor = this.supervisor;
    this.supervisor = null;
    this.current = null;
    await supervisor?.stop();
  }
}

/**
 * The llama-server command line: always `-m`, `--host 127.0.0.1` and `--port` (newer builds would
 * otherwise start in router mode or on another port), plus the configuration's offload, context,
 * threads and sampling defaults.
 */
function llmServerArgs(modelPath: string, port: number, config: LlmConfig): string[] {
  return [
    '-m', modelPath,
    '--host', '127.0.0.1',
    '--port', String(port),
    '-ngl', String(config.n_gpu_layers),
    '-c', String(config.ctx_size),
    '-t', String(config.threads),
    '--temp', String(config.temp),
    '--top-p', String(config.top_p),
    '--top-k', String(config.top_k),
    '--repeat-penalty', String(config.repeat_penalty),
  ];
}
