/**
 * A child's stdout and stderr, turned into timestamped log lines; stderr lines also feed a ring
 * of the last N lines that the supervisor shows when the child crashes.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { RotatingLog, type RotatingLogOptions } from './rotating-log.js';

/** A line longer than this is cut and written in pieces, so a child never grows our memory. */
const MAX_LINE_CHARS = 16 * 1024;

export type OutputStream = 'out' | 'err' | 'sup';

/**
 * Splits a byte stream into lines. A bare `\r` rewinds the line as a terminal would, so progress
 * bars (the engine draws them with `\r`) keep only their final state instead of every redraw.
 */
export class LineSplitter {
  readonly #decoder = new StringDecoder('utf8');
  readonly onLine: (line: string) => void;
  #partial = '';

  constructor(onLine: (line: string) => void) {
    this.onLine = onLine;
  }

  /** Feed a chunk; calls onLine for each completed line. */
  push(chunk: Buffer | string): void {
    const text = this.#partial + (typeof chunk === 'string' ? chunk : this.#decoder.write(chunk));
    const parts = text.split('\n');
    this.#partial = parts.pop() ?? '';
    for (const part of parts) this.#emit(part);
    // Collapse redraws now (a trailing `\r` may still be half of a `\r\n`) and cap the remainder.
    const rewind = this.#partial.lastIndexOf('\r', this.#partial.length - 2);
    if (rewind >= 0) this.#partial = this.#partial.slice(rewind + 1);
    while (this.#partial.length > MAX_LINE_CHARS) {
      this.onLine(this.#partial.slice(0, MAX_LINE_CHARS));
      this.#partial = this.#partial.slice(MAX_LINE_CHARS);
    }
  }

  /** Emit whatever is left without a newline (end of stream). */
  end(): void {
    const rest = this.#partial + this.#decoder.end();
    this.#partial = '';
    if (rest.length > 0) this.#emit(rest);
  }

  #emit(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const visible = line.slice(line.lastIndexOf('\r') + 1);
    for (let i = 0; i < visible.length || i === 0; i += MAX_LINE_CHARS) {
      this.onLine(visible.slice(i, i + MAX_LINE_CHARS));
    }
  }
}

/** What one attempt's output left behind, for the crash message. */
export interface AttemptOutput {
  lastStderrLine: string | null;
}

/** Owns the log file and the stderr ring for one supervised child. */
export class ChildOutput {
  readonly #tail: string[] = [];
  readonly #tailLines: number;
  readonly #logFile: string;
  readonly #logOptions: RotatingLogOptions;
  #log: RotatingLog | null = null;

  constructor(logFile: string, tailLines: number, logOptions: RotatingLogOptions = {}) {
    this.#logFile = logFile;
    this.#tailLines = Math.max(0, tailLines);
    this.#logOptions = logOptions;
  }

  /** The last stderr lines, oldest first (a copy). */
  tail(): string[] {
    return [...this.#tail];
  }

  /** Open the log file (again) for appending. */
  open(): void {
    this.#log ??= new RotatingLog(this.#logFile, this.#logOptions);
  }

  /** Flush and close the log file; lines arriving later are kept in the tail only. */
  async close(): Promise<void> {
    const log = this.#log;
    this.#log = null;
    if (log) await log.close();
  }

  /** Write one line of our own (start, exit, signals) into the child's log. */
  note(message: string): void {
    this.#write('sup', message);
  }

  /** Follow a child's stdout and stderr until they end. */
  attach(stdout: Readable | null, stderr: Readable | null): AttemptOutput {
    const attempt: AttemptOutput = { lastStderrLine: null };
    this.#follow(stdout, (line) => this.#write('out', line));
    this.#follow(stderr, (line) => {
      this.#write('err', line);
      if (line.trim().length > 0) attempt.lastStderrLine = line;
      if (this.#tailLines === 0) return;
      this.#tail.push(line);
      if (this.#tail.length > this.#tailLines) this.#tail.splice(0, this.#tail.length - this.#tailLines);
    });
    return attempt;
  }

  #follow(stream: Readable | null, onLine: (line: string) => void): void {
    if (!stream) return;
    const splitter = new LineSplitter(onLine);
    stream.on('data', (chunk: Buffer) => splitter.push(chunk));
    stream.on('end', () => splitter.end());
    stream.on('error', () => splitter.end());
  }

  #write(stream: OutputStream, line: string): void {
    this.#log?.write(`${new Date().toISOString()} [${stream}] ${line}\n`);
  }
}
