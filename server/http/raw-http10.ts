/**
 * The shared half of the two bare-socket readers (`downloads/download-raw.ts` for downloads,
 * `engine/view-relay.ts` for the engine's `/view`): an HTTP/1.0 GET sent over a plain socket
 * that reads into one reused buffer, and the answer's head read back. Why those readers exist is
 * in their own comments (issue 29: `node:http` allocates a buffer per read and copies each piece).
 *
 * HTTP/1.0, so the answer's body is framed by Content-Length or by the close, never chunked. A head
 * this reader does not fully understand (a Transfer-Encoding, a folded line, a 1xx, over 64 KiB) is
 * refused, and the caller asks again through `node:http`.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';

const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** An answer's head, as far as the readers need it. */
export interface RawHead {
  status: number;
  statusMessage: string;
  /** Names lower-cased, repeats joined with ", " (as `node:http` does for most). */
  headers: IncomingHttpHeaders;
  /** Body bytes still to come: Content-Length, or Infinity when the close ends the body. */
  length: number;
}

/**
 * Connect to an `http:` URL's host and send `head` (from `requestHead`); each read lands in
 * `buffer` and is handed to `onRead` (false pauses reading).
 */
export function sendRawGet(url: URL, head: string, buffer: Buffer, onRead: (bytes: number) => boolean): net.Socket {
  const socket = net.connect({
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port || 80),
    onread: { buffer, callback: onRead },
  });
  socket.write(head, 'latin1');
  return socket;
}

/** The GET's head (HTTP/1.0: see the file comment). Throws on a header `node:http` would refuse. */
export function requestHead(url: URL, headers: Record<string, string>): string {
  let head = `GET ${url.pathname}${url.search} HTTP/1.0\r\nHost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    http.validateHeaderName(name);
    http.validateHeaderValue(name, value);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n`;
}

/** What one read did to the head: still coming, refused (see the file comment), or complete with the body bytes read with it. */
export type HeadProgress = 'more' | 'refused' | { head: RawHead; rest: Buffer | null };

/** Collects an answer's head across reads (copies: the read buffer is reused). */
export class HeadCollector {
  private bytes = Buffer.alloc(0);

  /** Part of a head is held (the connection ending now cut it off). */
  get pending(): boolean {
    return this.bytes.length > 0;
  }

  add(piece: Buffer): HeadProgress {
    const searchFrom = Math.max(0, this.bytes.length - (HEAD_END.length - 1));
    this.bytes = Buffer.concat([this.bytes, piece]);
    const end = this.bytes.indexOf(HEAD_END, searchFrom);
    if (end < 0) return this.bytes.length > MAX_HEAD_BYTES ? 'refused' : 'more';
    const head = parseHead(this.bytes.subarray(0, end).toString('latin1'));
    const rest = this.bytes.subarray(end + HEAD_END.length);
    this.bytes = Buffer.alloc(0);
    return head ? { head, rest: rest.length ? rest : null } : 'refused';
  }
}

/** Status, headers and body length of an answer this reader takes on, else null. */
export function parseHead(text: string): RawHead | null {
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
