/**
 * The part file's writer: network chunks are gathered into batches of `BATCH_BYTES` (256 KiB) and
 * each batch is written at once, synchronously, with one `writev` of the chunks themselves (no
 * copy), before the next chunk is read. This runs on the download's own worker thread
 * (`download-thread.ts`), so a blocking write stalls nothing but this download, and the disk's pace
 * is the backpressure.
 *
 * Why batches of 256 KiB: over HTTPS `node:https` hands one chunk per 16 KiB TLS record, 65 536
 * per GiB, and a `write` each cost ~150 ms of CPU per GiB more than one `writev` per 256 KiB
 * (measured for issue 40 on 1 GiB, 3 alternating runs: 1.41 s against 1.26 s of process CPU for
 * receive + write; HTTP's 64 KiB chunks gain little). 128–512 KiB measured the same; 1 MiB cost
 * twice the CPU (2.7–3.0 s, nearly all system time), like the earlier design below.
 *
 * Why not a larger queue written by the thread pool (the earlier design): measured for issue 29 on
 * 1 GiB, holding up to 16 MiB of 64 KiB chunks until a `writev` on another thread cost 1.5–3 s of
 * system time per GiB against 0.8–1.2 s for writing each chunk at once. The kept chunks are cold
 * in the cache by the time another core copies them into the page cache, and freed late and in
 * bulk they send glibc's pages back to the kernel, which faults them in again zero-filled for the
 * next chunks (~90–160 k minor faults per GiB queued). A small batch written on this thread is
 * still in this core's cache and its memory is reused for the next one.
 *
 * The hasher follows the file as it grows (`onWritten`), told every `REPORT_BYTES` rather than
 * per chunk (one message per MiB, not ~16 000 per GiB).
 *
 * Every `writebackBytes` (128 MiB) an `fdatasync` starts on the thread pool and the writes go on
 * meanwhile: the disk takes the bytes while the rest arrives, and the downloader's fsync before
 * the rename (the one that makes the file durable, unchanged) finds little left to write.
 * Measured for issue 29 on 1 GiB: that final fsync took ~0.3 s of the download's ~1.8 s; with
 * the writebacks it takes ~2 ms, the writebacks themselves 0.04–0.3 s each beside the transfer
 * (wall time 0.1–0.25 s less in 3 of 3 alternating runs). Nothing waits for a writeback but
 * `close`.
 */
import fs from 'node:fs';
import { promisify } from 'node:util';

const openFile = promisify(fs.open);
const closeFile = promisify(fs.close);

/** Write once this many bytes of chunks are gathered (and on `flushPending` / `close`); see the file comment. */
const BATCH_BYTES = 256 * 1024;
/** Tell `onWritten` after at least this many new bytes (and on `flushPending` / `close`). */
const REPORT_BYTES = 1024 * 1024;
/** Default for `writebackBytes`; see the file comment. */
const WRITEBACK_BYTES = 128 * 1024 * 1024;

/** Writes a part file in order, in batches of chunks; see the file comment. */
export class PartWriter {
  /** Called with the number of bytes that reached the file since the last call (the hasher follows it). */
  onWritten: ((bytes: number) => void) | null = null;
  /** Chunks handed to `write` and not yet written, in order. */
  private batch: Buffer[] = [];
  private batchBytes = 0;
  /** Bytes written but not yet reported to `onWritten`. */
  private unreported = 0;
  private error: Error | null = null;
  private closed = false;
  /** Bytes written since the last writeback started. */
  private sinceWriteback = 0;
  /** The `fdatasync` under way on the thread pool, if any (`close` waits for it). */
  private writeback: Promise<void> | null = null;

  private constructor(
    private readonly file: string,
    private readonly fd: number,
    private readonly writebackBytes: number,
  ) {}

  /** Open `file` for appending (`append`) or truncated, ready for `write`; `writebackBytes`: see the file comment. */
  static async open(file: string, append: boolean, writebackBytes = WRITEBACK_BYTES): Promise<PartWriter> {
    return new PartWriter(file, await openFile(file, append ? 'a' : 'w'), writebackBytes);
  }

  /**
   * Queue `chunk` and write the batch once it holds `BATCH_BYTES`. The writer keeps `chunk` until
   * then: the caller must not change its memory (`node:http` hands a new Buffer per read). Throws
   * the write error (with the file's path); after one, every later call throws it again.
   */
  write(chunk: Buffer): void {
    if (this.error) throw this.error;
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    if (this.batchBytes >= BATCH_BYTES) this.writeBatch();
  }

  /**
   * Write the batch and report it to `onWritten` even if it is less than `BATCH_BYTES` /
   * `REPORT_BYTES` (the caller's timer). Never throws: a write error is kept and thrown by the next
   * `write` or by `close`.
   */
  flushPending(): void {
    if (this.error) return;
    try {
      this.writeBatch();
    } catch {
      return;
    }
    this.report();
  }

  /** Close the file (once) after writing and reporting the last bytes; rejects with the first write error. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      if (!this.error) {
        try {
          this.writeBatch();
        } catch {
          // Kept in `this.error`, thrown below once the file is closed.
        }
      }
      this.report();
      await this.writeback;
      await closeFile(this.fd);
    }
    if (this.error) throw this.error;
  }

  /** One `writev` of the batch (more if the file system takes part of it); reports and starts writebacks. */
  private writeBatch(): void {
    let chunks = this.batch;
    let remaining = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    try {
      // By bytes, not chunks: a batch of empty chunks writes nothing.
      while (remaining > 0) {
        let written = fs.writevSync(this.fd, chunks);
        // Never seen on a regular file; retrying would spin.
        if (written === 0) throw Object.assign(new Error('The file system accepted no bytes'), { code: 'EIO', syscall: 'write' });
        remaining -= written;
        this.unreported += written;
        this.sinceWriteback += written;
        // A short write (rare: a signal, a full disk): go on from the first byte not written.
        let first = 0;
        while (first < chunks.length && written >= chunks[first]!.length) written -= chunks[first++]!.length;
        chunks = chunks.slice(first);
        if (written > 0) chunks[0] = chunks[0]!.subarray(written);
      }
    } catch (err) {
      this.fail(err as Error);
    } finally {
      if (this.unreported >= REPORT_BYTES) this.report();
      if (this.sinceWriteback >= this.writebackBytes && !this.writeback) this.startWriteback();
    }
  }

  /**
   * `fdatasync` what is written so far on the thread pool, not waiting for it here. Its outcome
   * is not a verdict: the downloader's fsync before the rename is the one that counts (and fails).
   */
  private startWriteback(): void {
    this.sinceWriteback = 0;
    this.writeback = new Promise<void>((resolve) => fs.fdatasync(this.fd, () => resolve())).then(() => {
      this.writeback = null;
    });
  }

  private report(): void {
    if (this.unreported === 0) return;
    const bytes = this.unreported;
    this.unreported = 0;
    this.onWritten?.(bytes);
  }

  private fail(err: Error): never {
    // Errors on a descriptor carry no path; with one they read (and classify) as local file errors.
    const withPath = err as NodeJS.ErrnoException;
    withPath.path ??= this.file;
    this.error ??= err;
    throw this.error;
  }
}
