/**
 * A size-rotated, append-only log file for child output. Writes go through a write stream so a
 * chatty child never blocks the event loop; when the file passes `maxBytes` it is renamed to
 * `<file>.1` (older ones shift to `.2` … `.<keep>`, the oldest is dropped) and a fresh file opened.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface RotatingLogOptions {
  /** Rotate once the current file reaches this many bytes (default 5 MiB). */
  maxBytes?: number;
  /** How many rotated files to keep beside the current one (default 3). */
  keep?: number;
  /** Told about write or rotation failures; logging must never take the process down. */
  onError?: (err: Error) => void;
}

/** A size-rotated append-only log file. */
export class RotatingLog {
  readonly #file: string;
  readonly #maxBytes: number;
  readonly #keep: number;
  readonly #onError: (err: Error) => void;
  #stream: fs.WriteStream | null;
  #bytes: number;
  /** Non-null while a rotation is in flight: writes queue here, in order. */
  #pending: Buffer[] | null = null;
  #rotation: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(file: string, options: RotatingLogOptions = {}) {
    this.#file = file;
    this.#maxBytes = Math.max(1, options.maxBytes ?? 5 * 1024 * 1024);
    this.#keep = Math.max(0, options.keep ?? 3);
    this.#onError = options.onError ?? (() => {});
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.#bytes = sizeOf(file);
    this.#stream = this.#open();
  }

  /** The path of the current (newest) file. */
  get file(): string {
    return this.#file;
  }

  /** Append `chunk`; rotates after the write that reaches `maxBytes`. Ignored once closed. */
  write(chunk: string | Buffer): void {
    if (this.#closed) return;
    this.#append(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }

  /** Flush what was written and close the file; resolves once it is on disk. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // A rotation may start another one while it flushes its queue; wait until none is left.
    let rotation: Promise<void>;
    do {
      rotation = this.#rotation;
      await rotation;
    } while (rotation !== this.#rotation);
    const stream = this.#stream;
    this.#stream = null;
    if (stream) await endStream(stream);
  }

  #append(buf: Buffer): void {
    if (buf.length === 0) return;
    if (this.#pending || !this.#stream) {
      this.#pending?.push(buf);
      return;
    }
    this.#stream.write(buf);
    this.#bytes += buf.length;
    if (this.#bytes >= this.#maxBytes) this.#rotate();
  }

  #open(): fs.WriteStream {
    const stream = fs.createWriteStream(this.#file, { flags: 'a', mode: 0o600 });
    // An older log (or one made with a looser umask) gets the same mode.
    if (process.platform !== 'win32') fs.chmod(this.#file, 0o600, () => {});
    stream.on('error', (err) => this.#onError(err));
    return stream;
  }

  #rotate(): void {
    const old = this.#stream;
    this.#stream = null;
    this.#pending = [];
    // Rename only after the old stream is flushed and closed: Windows cannot rename an open file,
    // and on POSIX the tail of the old chunk would otherwise land in the renamed file anyway.
    this.#rotation = (async () => {
      if (old) await endStream(old);
      try {
        await this.#shiftFiles();
      } catch (err) {
        this.#onError(err as Error); // keep appending to the same file rather than lose lines
      }
      this.#bytes = sizeOf(this.#file);
      const queued = this.#pending ?? [];
      this.#pending = null;
      this.#stream = this.#open();
      for (const buf of queued) this.#append(buf);
    })();
  }

  async #shiftFiles(): Promise<void> {
    const name = (n: number) => `${this.#file}.${n}`;
    if (this.#keep === 0) {
      await fs.promises.rm(this.#file, { force: true });
      return;
    }
    await fs.promises.rm(name(this.#keep), { force: true });
    for (let n = this.#keep - 1; n >= 1; n--) {
      await fs.promises.rename(name(n), name(n + 1)).catch(ignoreMissing);
    }
    await fs.promises.rename(this.#file, name(1));
  }
}

function endStream(stream: fs.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed) return resolve();
    stream.once('close', () => resolve());
    stream.end();
  });
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}
