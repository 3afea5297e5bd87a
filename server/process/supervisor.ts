/**
 * A generic child-process supervisor, one object per child: readiness by an
 * HTTP health probe with a named timeout, SIGTERM then SIGKILL to the whole process group,
 * exponential backoff between restarts, and a bounded number of consecutive crashes after which
 * the child stays `crashed` with its last stderr lines visible.
 */
import type { ChildProcess } from 'node:child_process';
import { silentLogger, type Logger } from '../logging.js';
import { ChildOutput, type AttemptOutput } from './child-output.js';
import { waitForHealthy } from './health-probe.js';
import { groupHasLiveMembers, signalGroup, spawnInGroup } from './process-group.js';
import { backoffDelay } from './backoff.js';
import { sleep } from './sleep.js';

export type ChildStatus = 'stopped' | 'starting' | 'running' | 'restarting' | 'crashed' | 'stopping';

export interface ChildState {
  status: ChildStatus;
  pid: number | null;
  /** Automatic restarts since the last start()/restart() call. */
  restarts: number;
  startedAt: number | null;
  lastExit: { code: number | null; signal: string | null } | null;
  lastError: string | null;
  stderrTail: string[];
  /** While `restarting`: how long the backoff waits before the next attempt. */
  restartDelayMs: number | null;
}

export interface SupervisorOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  /** Passed whole; undefined inherits the parent's environment. */
  env?: NodeJS.ProcessEnv;
  /** Ready when GET answers 2xx. */
  healthUrl: string;
  readyTimeoutMs: number;
  /** Probe interval while starting (default 250). */
  healthIntervalMs?: number;
  /** Child stdout and stderr are appended here, rotated by size. */
  logFile: string;
  /** Rotation size of the log file (default 5 MiB). */
  logMaxBytes?: number;
  /** Rotated log files kept (default 3). */
  logKeep?: number;
  /** Consecutive crashes that are restarted (default 5); the next one leaves the child `crashed`. */
  maxRestarts?: number;
  /** First backoff delay, doubling per consecutive crash (default 1000). */
  backoffBaseMs?: number;
  /** Backoff cap (default 30000). */
  backoffMaxMs?: number;
  /** Running this long resets the consecutive-crash counter (default 60000). */
  stableAfterMs?: number;
  /** SIGTERM → wait this long → SIGKILL (default 10000). */
  stopTimeoutMs?: number;
  /** Stderr lines kept for the crash report (default 50). */
  stderrTailLines?: number;
  logger?: Logger;
}

/** Thrown by start() when the child is already supervised (or being stopped). */
export class SupervisorStateError extends Error {}

/** After the leader exits, wait at most this long for its stdio to drain (a grandchild may hold it). */
const DRAIN_CAP_MS = 2000;
/** How often stop() looks for group members that outlived the leader. */
const GROUP_POLL_MS = 50;

interface Attempt {
  child: ChildProcess;
  pid: number | null;
  /** Set when we take it down on purpose; decides between a requested stop and a crash. */
  ending: 'stop' | 'ready-timeout' | null;
  /** Aborts the readiness probe (exit, stop or timeout). */
  probe: AbortController;
  leaderExited: Promise<void>;
  hasExited: boolean;
  spawnError: string | null;
  output: AttemptOutput;
  /** Resolves after the exit has been recorded in the state; the failure reason if it crashed. */
  settled: Promise<string | null>;
}

type Resolved = Required<Omit<SupervisorOptions, 'cwd' | 'env' | 'logger'>> & Pick<SupervisorOptions, 'cwd' | 'env'>;

/** Supervises one child process: start, readiness, restarts with backoff, stop. */
export class ChildSupervisor {
  readonly #o: Resolved;
  readonly #logger: Logger;
  readonly #output: ChildOutput;
  readonly #listeners = new Set<(state: ChildState) => void>();
  #state: Omit<ChildState, 'stderrTail'> = {
    status: 'stopped',
    pid: null,
    restarts: 0,
    startedAt: null,
    lastExit: null,
    lastError: null,
    restartDelayMs: null,
  };
  #attempt: Attempt | null = null;
  #supervising = false;
  #consecutiveCrashes = 0;
  #restartTimer: NodeJS.Timeout | null = null;
  #stableTimer: NodeJS.Timeout | null = null;
  #stopping: Promise<void> | null = null;

  constructor(options: SupervisorOptions) {
    this.#o = {
      name: options.name,
      command: options.command,
      args: [...options.args],
      cwd: options.cwd,
      env: options.env,
      healthUrl: options.healthUrl,
      readyTimeoutMs: options.readyTimeoutMs,
      logFile: options.logFile,
      healthIntervalMs: options.healthIntervalMs ?? 250,
      maxRestarts: options.maxRestarts ?? 5,
      backoffBaseMs: options.backoffBaseMs ?? 1000,
      backoffMaxMs: options.backoffMaxMs ?? 30_000,
      stableAfterMs: options.stableAfterMs ?? 60_000,
      stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
      stderrTailLines: options.stderrTailLines ?? 50,
      logMaxBytes: options.logMaxBytes ?? 5 * 1024 * 1024,
      logKeep: options.logKeep ?? 3,
    };
    this.#logger = options.logger ?? silentLogger;
    this.#output = new ChildOutput(this.#o.logFile, this.#o.stderrTailLines, {
      maxBytes: this.#o.logMaxBytes,
      keep: this.#o.logKeep,
      onError: (err) => this.#logger.warn(`${this.#o.name}: log file: ${err.message}`),
    });
  }

  /** A copy of the current state. */
  get state(): ChildState {
    const s = this.#state;
    return { ...s, lastExit: s.lastExit ? { ...s.lastExit } : null, stderrTail: this.#output.tail() };
  }

  /** Call `listener` with a copy of the state on every status change; returns the unsubscribe. */
  onStateChange(listener: (state: ChildState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Start the child and resolve once its health URL answers; rejects if that attempt fails. */
  async start(): Promise<void> {
    const status = this.#state.status;
    if (status !== 'stopped' && status !== 'crashed') {
      throw new SupervisorStateError(`${this.#o.name} is already ${status}`);
    }
    this.#output.open();
    this.#supervising = true;
    this.#consecutiveCrashes = 0;
    // No event yet: the next one a listener sees is 'starting'.
    this.#state = { ...this.#state, restarts: 0, lastError: null, restartDelayMs: null };
    await this.#launch();
  }

  /** Stop supervising and take the child (and its whole group) down; no-op when nothing runs. */
  stop(): Promise<void> {
    if (this.#stopping) return this.#stopping;
    this.#supervising = false;
    this.#clearTimers();
    const attempt = this.#attempt;
    if (!attempt) {
      if (this.#state.status === 'restarting') this.#set({ status: 'stopped', restartDelayMs: null });
      return this.#output.close();
    }
    attempt.ending = 'stop';
    attempt.probe.abort();
    this.#set({ status: 'stopping' });
    this.#output.note(`stopping pid ${attempt.pid ?? '-'}`);
    this.#stopping = (async () => {
      try {
        await this.#terminate(attempt);
      } finally {
        this.#stopping = null;
        this.#set({ status: 'stopped', pid: null, startedAt: null, restartDelayMs: null });
        await this.#output.close();
      }
    })();
    return this.#stopping;
  }

  /** The command's arguments; changeable only while nothing runs (the next start uses them). */
  get args(): readonly string[] {
    return this.#o.args;
  }

  setArgs(args: readonly string[]): void {
    const status = this.#state.status;
    if (status !== 'stopped' && status !== 'crashed') throw new SupervisorStateError(`${this.#o.name} is ${status}: stop it before changing its arguments`);
    this.#o.args = [...args];
  }

  /** Stop, then start again with a fresh crash counter. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async #launch(): Promise<void> {
    let attempt: Attempt;
    try {
      attempt = this.#spawn();
    } catch (err) {
      // Synchronous spawn failures (malformed arguments); most failures arrive as 'error' events.
      const reason = this.#crashed(`could not start: ${(err as Error).message}`, { code: null, signal: null });
      throw new Error(reason, { cause: err });
    }
    const timeout = setTimeout(() => {
      if (attempt.ending !== null) return;
      attempt.ending = 'ready-timeout';
      attempt.probe.abort();
      this.#output.note(`not ready within ${this.#o.readyTimeoutMs} ms, killing pid ${attempt.pid ?? '-'}`);
      void this.#terminate(attempt);
    }, this.#o.readyTimeoutMs);
    let ready: boolean;
    try {
      ready = await waitForHealthy(this.#o.healthUrl, this.#o.healthIntervalMs, attempt.probe.signal);
    } finally {
      clearTimeout(timeout);
    }
    if (ready && this.#attempt === attempt && attempt.ending === null && !attempt.hasExited) {
      this.#consecutiveCrashesResetLater();
      this.#set({ status: 'running', startedAt: Date.now(), restartDelayMs: null });
      this.#output.note(`ready (pid ${attempt.pid ?? '-'})`);
      this.#logger.info(`${this.#o.name}: running (pid ${attempt.pid ?? '-'})`);
      return;
    }
    attempt.probe.abort();
    const failure = await attempt.settled;
    throw new Error(failure ?? `${this.#o.name} was stopped before it was ready`);
  }

  #spawn(): Attempt {
    const { command, args, cwd, env } = this.#o;
    this.#output.note(`starting: ${[command, ...args].join(' ')}${cwd ? ` (in ${cwd})` : ''}`);
    const child = spawnInGroup(command, args, { cwd, env });
    let onLeaderExit!: () => void;
    const leaderExited = new Promise<void>((resolve) => (onLeaderExit = resolve));
    const attempt: Attempt = {
      child,
      pid: child.pid ?? null,
      ending: null,
      probe: new AbortController(),
      leaderExited,
      hasExited: false,
      spawnError: null,
      output: this.#output.attach(child.stdout, child.stderr),
      settled: Promise.resolve(null),
    };
    attempt.settled = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
      let drainCap: NodeJS.Timeout | undefined;
      const done = (code: number | null, signal: string | null) => {
        clearTimeout(drainCap);
        attempt.hasExited = true;
        onLeaderExit();
        resolve({ code, signal });
      };
      child.once('close', done);
      child.once('exit', (code, signal) => {
        attempt.hasExited = true;
        onLeaderExit();
        // Members left in the group of a crashed child are garbage; they would also hold its port.
        if (attempt.ending === null && attempt.pid !== null) signalGroup(attempt.pid, 'SIGKILL');
        drainCap = setTimeout(() => done(code, signal), DRAIN_CAP_MS);
      });
      child.on('error', (err) => {
        // 'error' also reports failed kills of a live child; only a failed spawn ends the attempt.
        if (attempt.pid === null) attempt.spawnError = err.message;
      });
    }).then((exit) => this.#onFinished(attempt, exit));
    this.#attempt = attempt;
    this.#set({ status: 'starting', pid: attempt.pid, startedAt: null, restartDelayMs: null });
    return attempt;
  }

  /** Record an attempt's end: a requested stop, or a crash that is restarted or gives up. */
  #onFinished(attempt: Attempt, exit: { code: number | null; signal: string | null }): string | null {
    if (this.#attempt === attempt) this.#attempt = null;
    attempt.probe.abort();
    this.#clearStableTimer();
    const lastExit = attempt.spawnError ? { code: null, signal: null } : exit;
    this.#output.note(`exited (${describeExit(lastExit)})`);
    if (attempt.ending === 'stop' || !this.#supervising) {
      this.#set({ pid: null, lastExit });
      return null;
    }
    const cause =
      attempt.ending === 'ready-timeout'
        ? `not ready within ${this.#o.readyTimeoutMs} ms`
        : attempt.spawnError
          ? `could not start: ${attempt.spawnError}`
          : describeExit(lastExit);
    const last = attempt.output.lastStderrLine;
    return this.#crashed(`${cause}${last ? `: ${last.trim()}` : ''}`, lastExit);
  }

  /** Count a crash; schedule the next attempt after the backoff, or give up. Returns the reason. */
  #crashed(cause: string, lastExit: { code: number | null; signal: string | null }): string {
    const reason = `${this.#o.name} ${cause}`;
    this.#consecutiveCrashes += 1;
    if (this.#consecutiveCrashes > this.#o.maxRestarts) {
      this.#supervising = false;
      this.#logger.error(`${reason}; gave up after ${this.#consecutiveCrashes} consecutive crashes`);
      this.#set({ status: 'crashed', pid: null, startedAt: null, lastExit, lastError: reason, restartDelayMs: null });
      void this.#output.close();
      return reason;
    }
    const delay = backoffDelay(this.#consecutiveCrashes, { baseMs: this.#o.backoffBaseMs, maxMs: this.#o.backoffMaxMs });
    this.#logger.warn(`${reason}; restarting in ${delay} ms`);
    this.#output.note(`restarting in ${delay} ms`);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      if (!this.#supervising) return;
      // The failure is already in the state; nobody awaits a background restart.
      this.#launch().catch(() => undefined);
    }, delay);
    this.#set({
      status: 'restarting',
      pid: null,
      startedAt: null,
      lastExit,
      lastError: reason,
      restarts: this.#state.restarts + 1,
      restartDelayMs: delay,
    });
    return reason;
  }

  /** SIGTERM the group, give it stopTimeoutMs (leftover members included), then SIGKILL. */
  async #terminate(attempt: Attempt): Promise<void> {
    const pid = attempt.pid;
    if (pid === null) {
      await attempt.settled;
      return;
    }
    const deadline = Date.now() + this.#o.stopTimeoutMs;
    signalGroup(pid, 'SIGTERM');
    const grace = new AbortController();
    await Promise.race([attempt.leaderExited, sleep(this.#o.stopTimeoutMs, grace.signal)]);
    grace.abort();
    while (attempt.hasExited && Date.now() < deadline && (await groupHasLiveMembers(pid))) {
      await sleep(GROUP_POLL_MS);
    }
    if (!attempt.hasExited || (await groupHasLiveMembers(pid))) {
      this.#output.note(`pid ${pid} ignored SIGTERM for ${this.#o.stopTimeoutMs} ms, sending SIGKILL`);
      this.#logger.warn(`${this.#o.name}: pid ${pid} ignored SIGTERM, sending SIGKILL`);
      signalGroup(pid, 'SIGKILL');
    }
    await attempt.settled;
  }

  #consecutiveCrashesResetLater(): void {
    this.#clearStableTimer();
    this.#stableTimer = setTimeout(() => {
      this.#stableTimer = null;
      this.#consecutiveCrashes = 0;
    }, this.#o.stableAfterMs);
    this.#stableTimer.unref();
  }

  #clearStableTimer(): void {
    if (this.#stableTimer) clearTimeout(this.#stableTimer);
    this.#stableTimer = null;
  }

  #clearTimers(): void {
    this.#clearStableTimer();
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
  }

  #set(patch: Partial<Omit<ChildState, 'stderrTail'>>): void {
    const before = this.#state.status;
    this.#state = { ...this.#state, ...patch };
    if (before !== this.#state.status) {
      this.#logger.debug(`${this.#o.name}: ${before} → ${this.#state.status}`);
    }
    const snapshot = this.state;
    for (const listener of this.#listeners) {
      try {
        listener(snapshot);
      } catch (err) {
        this.#logger.error(`${this.#o.name}: state listener failed`, err);
      }
    }
  }
}

function describeExit(exit: { code: number | null; signal: string | null }): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  return exit.code === null ? 'exited' : `exited with code ${exit.code}`;
}
