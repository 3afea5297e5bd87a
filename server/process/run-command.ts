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
}

export interface RunResult {
  code: number | null;
  timedOut: boolean;
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
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, timedOut, stderr: error.message, stdout });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      out.end();
      err.end();
      resolve({ code, timedOut, stderr, stdout });
    });
  });
}
