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
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import type { PartWriter } from './download-part-writer.js';

const READ_BYTES = 256 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

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
  private headBytes = Buffer.alloc(0);
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
    const socket = net.connect({
      host: this.url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(this.url.port || 80),
      onread: { buffer: this.buffer, callback: (bytes) => this.onRead(bytes) },
    });
    this.socket = socket;
    socket.write(head, 'latin1');
    socket.on('error', (err) => this.end(err));
    socket.on('close', () => this.end(new Error('The connection closed before the whole file arrived')));
    this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => this.end(new Error('The download was aborted'));

  /** A read landed in the buffer; false pauses reading. */
  private onRead(bytes: number): boolean {
    if (this.done) return false;
    if (this.answered) return this.write(this.buffer.subarray(0, bytes));
    const searchFrom = Math.max(0, this.headBytes.length - (HEAD_END.length - 1));
    this.headBytes = Buffer.concat([this.headBytes, this.buffer.subarray(0, bytes)]);
    const end = this.headBytes.indexOf(HEAD_END, searchFrom);
    if (end < 0) {
      if (this.headBytes.length > MAX_HEAD_BYTES) this.decline();
      return !this.done;
    }
    const head = parseHead(this.headBytes.subarray(0, end).toString('latin1'));
    if (!head) {
      this.decline();
      return false;
    }
    const rest = this.headBytes.subarray(end + HEAD_END.length);
    this.early = rest.length ? rest : null;
    this.headBytes = Buffer.alloc(0);
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
  private slowMessage(head: Head): IncomingMessage {
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

/** The request's head: HTTP/1.0 so the answer is never chunked. Throws on a header `node:http` would refuse. */
function requestHead(url: URL, headers: Record<string, string>): string {
  let head = `GET ${url.pathname}${url.search} HTTP/1.0\r\nHost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    http.validateHeaderName(name);
    http.validateHeaderValue(name, value);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n`;
}

interface Head {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  /** Body bytes still to come: Content-Length, or Infinity when the close ends the body. */
  length: number;
}

/** Status, headers (names lower-cased, repeats joined) and body length of an answer this reader takes on, else null. */
export function parseHead(text: string): Head | null {
  const lines = text.split('\r\n');
  const statusLine = /^HTTP\/1\.[01] ([2-5]\d\d)(?: ([^\r\n]*))?$/.exec(lines[0]!);
  if (!statusLine) return null;
  const status = Number(statusLine[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    // A folded line (leading space) or a name that is not a token: leave it to node:http.
    if (colon <= 0 || !TOKEN.test(name)) return null;
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  if ('transfer-encoding' in headers) return null;
  const declared = headers['content-length'];
  if (declared !== undefined && !/^\d{1,15}$/.test(declared)) return null;
  const length = status === 204 || status === 304 ? 0 : declared !== undefined ? Number(declared) : Infinity;
  return { status, statusMessage: statusLine[2] ?? '', headers, length };
}
