/**
 * `GET /view` over a plain socket that reads into one reusable 64 KiB buffer, for the stream-through
 * path of `/api/engine/view`. Why not `node:http` (measured for issue 29 with `--cpu-prof` and
 * `perf` on a 50 MB file): its client gives every socket read a fresh 64 KiB buffer and its parser
 * copies each body piece into another one. The garbage collector frees those in bulk, glibc hands
 * the freed pages back to the kernel, and the next pieces fault them in again, zero-filled: a
 * quarter to a third of Studio's CPU per file went to those page faults and copies. Here each read
 * lands in the same buffer, is written on as it is, and the next read waits until that write is
 * done (so the buffer is never overwritten while the response still holds it): no allocation and
 * no copy per piece, and the client's own pace is the backpressure.
 *
 * The request is HTTP/1.0, so the engine frames the body by Content-Length or by closing the
 * connection, never in chunks. An answer outside that (a Transfer-Encoding, a 1xx, a head this
 * reader cannot parse or over 64 KiB) is `unsupported`: the caller asks again with `node:http`.
 */
import type net from 'node:net';
import { finished, type Writable } from 'node:stream';
import { HeadCollector, requestHead, sendRawGet, type RawHead } from '../http/raw-http10.js';
import type { ViewRelay } from './engine-protocol.js';

const READ_BYTES = 64 * 1024;

export interface RawViewRequest {
  /** An `http:` URL of the engine's `/view` with its query. */
  url: URL;
  headers: Record<string, string>;
  /** Aborts the transfer (a client that went away). */
  signal?: AbortSignal;
  /** Only the wait for the answer's head is timed. */
  headersTimeoutMs: number;
}

/** The relay, or why there is none: nothing answered, or an answer only `node:http` takes on. */
export type RawViewAnswer = ViewRelay | 'unreachable' | 'unsupported';

/** Ask the engine; resolves once the answer's head is in (the body is left for `pipeTo`). */
export function requestRawView(req: RawViewRequest): Promise<RawViewAnswer> {
  const head = requestHead(req.url, req.headers);
  return new Promise((resolve) => new RawView(req, resolve).start(head));
}

/** The answer to one request: head phase, then (paused until `pipeTo`) body phase. */
class RawView {
  private readonly buffer = Buffer.allocUnsafe(READ_BYTES);
  private socket: net.Socket | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly head = new HeadCollector();
  private answered = false;
  /** Body bytes that came in the same read as the end of the head (a copy). */
  private early: Buffer | null = null;
  private remaining = 0;
  /** Set while the body is being written into a response. */
  private dest: Writable | null = null;
  private engineError: Error | null = null;
  private done = false;

  constructor(
    private readonly req: RawViewRequest,
    private readonly answer: (a: RawViewAnswer) => void,
  ) {}

  start(head: string): void {
    if (this.req.signal?.aborted) return this.settle('unreachable');
    const { url } = this.req;
    const socket = sendRawGet(url, head, this.buffer, (bytes) => this.onRead(bytes));
    this.socket = socket;
    socket.on('error', (err) => this.fail(err));
    socket.on('end', () => this.onEnd());
    socket.on('close', () => {
      this.req.signal?.removeEventListener('abort', this.onAbort);
      this.onEnd();
    });
    this.timer = setTimeout(() => this.fail(new Error(`no response within ${this.req.headersTimeoutMs} ms`)), this.req.headersTimeoutMs);
    this.req.signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    this.fail(new Error('aborted'));
  };

  /** A read landed in the buffer; false stops reading until `resume()`. */
  private onRead(bytes: number): boolean {
    if (this.done) return false;
    if (this.answered) return this.forward(this.buffer.subarray(0, bytes));
    const progress = this.head.add(this.buffer.subarray(0, bytes));
    if (progress === 'more') return true;
    if (progress === 'refused') {
      this.unsupported();
      return false;
    }
    const { head, rest } = progress;
    this.early = rest;
    this.remaining = head.length;
    this.socket!.pause();
    this.settle(this.relay(head));
    return false;
  }

  private relay(head: RawHead): ViewRelay {
    return {
      status: head.status,
      headers: head.headers,
      pipeTo: (dest) => this.pipeTo(dest),
      discard: () => this.finish(),
    };
  }

  private pipeTo(dest: Writable): Promise<void> {
    return new Promise((resolve, reject) => {
      // Resolves once `dest` finished; rejects when it closed early or the engine failed mid-body.
      finished(dest, (err) => {
        this.finish();
        if (this.engineError || err) reject(this.engineError ?? err);
        else resolve();
      });
      if (this.engineError) return void dest.destroy(this.engineError);
      this.dest = dest;
      const early = this.early;
      this.early = null;
      if (early) this.forward(early);
      else if (this.remaining === 0) this.complete();
      else this.socket!.resume();
    });
  }

  /** Write a piece on; reading resumes once the write is done with the buffer. */
  private forward(chunk: Buffer): boolean {
    const dest = this.dest;
    if (!dest || this.done) return false;
    const piece = chunk.length > this.remaining ? chunk.subarray(0, this.remaining) : chunk;
    this.remaining -= piece.length;
    this.socket!.pause();
    dest.write(piece, (err) => {
      if (err || this.done) return;
      if (this.remaining === 0) this.complete();
      else this.socket!.resume();
    });
    return false;
  }

  /** The engine's side ended (or the socket closed). */
  private onEnd(): void {
    // Part of a head that never ended (bare LF line ends?): leave it to node:http's parser.
    if (!this.answered && this.head.pending && !this.done) return this.unsupported();
    if (!this.answered) return this.fail(new Error('the engine closed the connection before answering'));
    if (this.done) return;
    // Reads are paused until `pipeTo`, so only a failure closes the connection before it.
    if (!this.dest) return this.fail(new Error('the engine closed the connection'));
    if (this.remaining === Infinity) this.complete();
    else this.fail(new Error(`the engine closed the connection with ${this.remaining} bytes of the body still to come`));
  }

  /** The whole body is written: end the response. */
  private complete(): void {
    const dest = this.dest!;
    this.finish();
    dest.end();
  }

  private fail(err: Error): void {
    if (!this.answered) {
      this.finish();
      this.settle('unreachable');
      return;
    }
    if (this.done) return;
    this.engineError = err;
    const dest = this.dest;
    this.finish();
    dest?.destroy(err);
  }

  private unsupported(): void {
    this.finish();
    this.settle('unsupported');
  }

  /** Done with the engine: its connection closes, no more reads, no timer, no abort listener. */
  private finish(): void {
    this.done = true;
    this.dest = null;
    clearTimeout(this.timer);
    this.req.signal?.removeEventListener('abort', this.onAbort);
    this.socket?.destroy();
  }

  private settle(answer: RawViewAnswer): void {
    if (this.answered) return;
    this.answered = true;
    clearTimeout(this.timer);
    this.answer(answer);
  }
}
