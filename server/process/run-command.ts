/**
 * Run a short-lived program to completion (git, pip, an install script): its own process group,
 * a deadline that kills the whole group, each output line handed over as it arrives, and the
 * tail of stderr kept for the error message.
 */
import { LineSplitter } from './child-output.js';
import { signalGroup, spawnInGroup } from './process-group.js';

export interface RunOptions {
  cwd?: string;
  /** Pass `childEnvironment(...)` output: never Studio's own environment. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  onLine?: (line: string, stream: 'out' | 'err') => void;
  /** Aborting kills the whole group at once (a cancelled install); the result says `aborted`. */
  signal?: AbortSignal;
}

export interface RunResult {
  code: number | null;
  timedOut: boolean;
  /** Killed because `signal` aborted. */
  aborted?: boolean;
  /** The last ~8 KB of stderr (and of stdout, for tools that report errors there). */
  stderr: string;
  stdout: string;
}

const TAIL_BYTES = 8 * 1024;

/** Run `command args` and resolve when it has exited (never rejects for a failing program). */
export function runCommand(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawnInGroup(command, args, { cwd: options.cwd, env: options.env });
    let stderr = '';
    let stdout = '';
    let timedOut = false;
    const keep = (tail: string, text: string) => (tail + text).slice(-TAIL_BYTES);
    const split = (stream: 'out' | 'err') => new LineSplitter((line) => options.onLine?.(line, stream));
    const out = split('out');
    const err = split('err');
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout = keep(stdout, chunk.toString('utf8'));
      out.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = keep(stderr, chunk.toString('utf8'));
      err.push(chunk);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
    }, options.timeoutMs);
    let aborted = false;
    const abort = () => {
      aborted = true;
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
    };
    if (options.signal?.aborted) abort();
    else options.signal?.addEventListener('abort', abort, { once: true });
    const done = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
    };
    child.on('error', (error) => {
      done();
      resolve({ code: null, timedOut, stderr: error.message, stdout, ...(aborted ? { aborted } : {}) });
    });
    child.on('close', (code) => {
      done();
      out.end();
      err.end();
      resolve({ code, timedOut, stderr, stdout, ...(aborted ? { aborted } : {}) });
    });
  });
}
