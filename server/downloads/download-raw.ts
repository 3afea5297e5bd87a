/**
 * A plain-`http:` download body read over a bare socket into one reused buffer, each read written
 * to the part file before the next read (the way `curl` does it). Why (measured for issue 29 on
 * 1 GiB, same machine, same run): through `node:http` every socket read gets a fresh 64 KiB buffer
 * and the parser copies each body piece into another; the garbage collector frees them in bulk,
 * glibc returns the pages to the kernel and the next pieces fault them in again, zero-filled —
 * 30 000–350 000 minor faults and 1.2–1.7 s of CPU per GiB to receive and write, against ~300–1 400
 * faults and 0.65–0.8 s reading into one buffer (curl: ~640 faults, 1.1–1.3 s).
 *
 * Only `http:` and a head this reader can parse: anything else (https, a Transfer-Encoding, a
 * head over 64 KiB, no answer at all) is `null` and the caller asks through `node:http`. The
 * request is HTTP/1.0, so the body is never chunked. A `200`/`206` with a Content-Length is the
 * fast path (`pump` reads into the reused buffer); any other answer — a redirect, an error
 * status, a 416, a body that only the close ends — comes back as a small stream with
 * `statusCode`, `statusMessage` and `headers` (its few pieces copied), which the redirect,
 * error and verdict code of `node:http`'s path reads the same way as an `IncomingMessage`.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type net from 'node:net';
import { PassThrough } from 'node:stream';
import { HeadCollector, requestHead, sendRawGet, type RawHead } from '../http/raw-http10.js';
import type { PartWriter } from './download-part-writer.js';

const READ_BYTES = 256 * 1024;

/** An answer's head read by this module; `fast` when its body can be pumped from the reused buffer. */
export type RawResponse = { fast: RawAnswer } | { message: IncomingMessage };

/** A 200/206 answer with a Content-Length, its body still unread. */
export interface RawAnswer {
  status: 200 | 206;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  /** Write the whole body into `out` (`onChunk` counts each piece first); rejects on a failure or a close before the end. */
  pump(out: PartWriter, onChunk: (bytes: number) => void): Promise<void>;
  /** Close the connection (idempotent); a pump under way rejects. */
  release(): void;
}

/** GET `url` (http: only) with `headers`; the answer once its head is in, or null (see the file comment). */
export function rawGet(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<RawResponse | null> {
  if (url.protocol !== 'http:' || signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => new RawBody(url, signal, resolve, reject).start(requestHead(url, headers)));
}

/** One request: head phase (answer or null), then, paused until `pump`, the body phase. */
class RawBody {
  private readonly buffer = Buffer.allocUnsafe(READ_BYTES);
  private socket: net.Socket | null = null;
  private readonly head = new HeadCollector();
  private answered = false;
  private done = false;
  /** Body bytes that came with the end of the head (a copy: the read buffer is reused). */
  private early: Buffer | null = null;
  private remaining = 0;
  /** The stream of an answer that is not on the fast path. */
  private slow: PassThrough | null = null;
  private sink: { out: PartWriter; onChunk: (bytes: number) => void; resolve: () => void; reject: (error: Error) => void } | null = null;

  constructor(
    private readonly url: URL,
    private readonly signal: AbortSignal,
    private readonly answer: (answer: RawResponse | null) => void,
    private readonly refuse: (error: Error) => void,
  ) {}

  start(head: string): void {
    const socket = sendRawGet(this.url, head, this.buffer, (bytes) => this.onRead(bytes));
    this.socket = socket;
    socket.on('error', (err) => this.end(err));
    socket.on('close', () => this.end(new Error('The connection closed before the whole file arrived')));
    this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => this.end(new Error('The download was aborted'));

  /** A read landed in the buffer; false pauses reading. */
  private onRead(bytes: number): boolean {
    if (this.done) return false;
    if (this.answered) return this.write(this.buffer.subarray(0, bytes));
    const progress = this.head.add(this.buffer.subarray(0, bytes));
    if (progress === 'more') return true;
    if (progress === 'refused') {
      this.decline();
      return false;
    }
    const { head, rest } = progress;
    this.early = rest;
    this.remaining = head.length;
    this.answered = true;
    if ((head.status === 200 || head.status === 206) && head.length !== Infinity) {
      this.socket!.pause();
      const { status, statusMessage, headers } = head;
      this.answer({ fast: { status, statusMessage, headers, pump: (out, onChunk) => this.pump(out, onChunk), release: () => this.release() } });
      return false;
    }
    this.answer({ message: this.slowMessage(head) });
    return !this.done;
  }

  /** A stream standing in for `IncomingMessage` (status, headers, body events, destroy); see the file comment. */
  private slowMessage(head: RawHead): IncomingMessage {
    const slow = Object.assign(new PassThrough(), { statusCode: head.status, statusMessage: head.statusMessage, headers: head.headers });
    this.slow = slow;
    // Destroyed by its reader (a redirect or error body read far enough): the connection goes too.
    slow.on('close', () => this.close());
    const early = this.early;
    this.early = null;
    if (early) this.slowPiece(early);
    else if (this.remaining === 0) this.finish();
    return slow as unknown as IncomingMessage;
  }

  /** A copy of the piece into the slow answer's stream (the read buffer is reused). */
  private slowPiece(piece: Buffer): boolean {
    const body = piece.length > this.remaining ? piece.subarray(0, this.remaining) : piece;
    this.remaining -= body.length;
    const more = this.slow!.write(Buffer.from(body));
    if (this.remaining === 0) this.finish();
    if (this.done) return false;
    if (more) return true;
    // Its reader is behind (a whole file without a length, written as it comes): wait for it.
    this.socket!.pause();
    this.slow!.once('drain', () => {
      if (!this.done) this.socket!.resume();
    });
    return false;
  }

  private pump(out: PartWriter, onChunk: (bytes: number) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.done) return reject(new Error('The connection closed before the whole file arrived'));
      this.sink = { out, onChunk, resolve, reject };
      const early = this.early;
      this.early = null;
      if (early) this.write(early);
      if (this.remaining === 0) this.finish();
      else if (!this.done) this.socket!.resume();
    });
  }

  /** Write one piece of the body (synchronously: the buffer is reused by the next read). */
  private write(piece: Buffer): boolean {
    if (this.slow) return this.done ? false : this.slowPiece(piece);
    const sink = this.sink;
    if (!sink || this.done) return false;
    const body = piece.length > this.remaining ? piece.subarray(0, this.remaining) : piece;
    this.remaining -= body.length;
    sink.onChunk(body.length);
    try {
      sink.out.write(body);
    } catch (err) {
      this.end(err as Error);
      return false;
    }
    if (this.remaining === 0) this.finish();
    return !this.done;
  }

  /** The whole body is written. */
  private finish(): void {
    const sink = this.sink;
    const slow = this.slow;
    this.close();
    sink?.resolve();
    slow?.end();
  }

  /** The connection ended, failed or was aborted: before the answer that is "no answer here", after it a failure. */
  private end(error: Error): void {
    if (this.done) return;
    const sink = this.sink;
    this.close();
    if (!this.answered) {
      this.answered = true;
      if (this.signal.aborted) this.refuse(error);
      else this.answer(null);
    } else if (this.slow) {
      // A body that only the close ends is complete at the close; any other is cut short.
      if (this.remaining === Infinity && !this.signal.aborted) this.slow.end();
      else this.slow.destroy(error);
    } else {
      sink?.reject(error);
    }
  }

  private decline(): void {
    this.close();
    this.answered = true;
    this.answer(null);
  }

  private release(): void {
    this.end(new Error('The download stopped reading the body'));
  }

  private close(): void {
    this.done = true;
    this.sink = null;
    this.signal.removeEventListener('abort', this.onAbort);
    this.socket?.destroy();
  }
}
