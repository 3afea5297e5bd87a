/**
 * The chat proxy to llama-server's OpenAI-style endpoint (`POST /v1/chat/completions`). The answer is
 * either a JSON body or a stream of SSE text the route writes as it comes: relayed line by line as
 * each upstream chunk arrives (no buffering beyond an unfinished line), old builds' `error:` SSE
 * lines become standard `data: {"error": …}` lines, and the stream always ends with
 * `data: [DONE]`. Aborting the signal (a client that left) or stopping the iteration aborts the
 * upstream request; nothing times out a long generation. Knows nothing of Express.
 */
import http from 'node:http';
import { text as streamText } from 'node:stream/consumers';
import { DomainError } from '../domain-error.js';

/** A finished JSON answer, or an event stream to relay chunk by chunk. */
export type ChatAnswer = { kind: 'json'; body: Record<string, unknown> } | { kind: 'stream'; chunks: AsyncIterable<string | Buffer> };

/** Send `body` to `baseUrl`; resolves once the upstream answer starts (or is whole, for JSON: `stream` not true). */
export function openChat(baseUrl: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<ChatAnswer> {
  const stream = body.stream === true;
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const upstream = http.request(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), Accept: stream ? 'text/event-stream' : 'application/json' },
      signal,
    });
    // After the answer started, a broken connection shows in the body stream (see relay()).
    upstream.on('error', (err) => reject(new DomainError('unavailable', `The LLM server is unreachable: ${err.message}`)));
    upstream.on('response', (up) => {
      if ((up.statusCode ?? 500) >= 400 || !stream) {
        collectJson(up).then(
          ({ status, body }) => (status >= 400 ? reject(upstreamError(status, body)) : resolve({ kind: 'json', body: withUsage(body) })),
          (err: unknown) => reject(new DomainError('bad_gateway', `The LLM server sent an unreadable answer: ${(err as Error).message}`)),
        );
        return;
      }
      resolve({ kind: 'stream', chunks: relay(up) });
    });
    upstream.end(payload);
  });
}

/** The upstream event stream, translated, always ending with `[DONE]` (an error line first when it broke). */
async function* relay(up: http.IncomingMessage): AsyncGenerator<string | Buffer> {
  const relay = new SseRelay();
  let complete = false;
  try {
    try {
      for await (const chunk of up as AsyncIterable<Buffer>) yield* relay.push(chunk);
    } catch {
      yield endLines('The LLM server connection broke mid-answer');
      complete = true;
      return;
    }
    yield* relay.end();
    complete = true;
    if (!relay.sawDone) yield endLines(relay.sawError ? null : 'The LLM server ended the stream early');
  } finally {
    // The reader stopped early (the client left): stop the generation upstream too.
    if (!complete) up.destroy();
  }
}

const NEWLINE = 0x0a;
const OLD_ERROR = Buffer.from('error:');
const OLD_ERROR_LINE = Buffer.from('\nerror:');
const DONE = Buffer.from('data: [DONE]');
const ERROR_KEY = Buffer.from('"error"');

/** Passes on complete SSE lines as soon as a chunk completes them. */
class SseRelay {
  private partial = '';
  sawDone = false;
  sawError = false;

  /** What of `chunk` can go out now: nothing, or the lines it completed. */
  push(chunk: Buffer): Array<string | Buffer> {
    // The common case, whole lines with nothing to translate, goes out as the same bytes.
    if (this.partial === '' && chunk[chunk.length - 1] === NEWLINE && !chunk.includes(OLD_ERROR_LINE) && !chunk.subarray(0, 6).equals(OLD_ERROR)) {
      if (chunk.includes(DONE)) this.sawDone = true;
      if (chunk.includes(ERROR_KEY)) this.sawError = true;
      return [chunk];
    }
    const text = this.partial + chunk.toString('utf8');
    const cut = text.lastIndexOf('\n');
    if (cut < 0) {
      this.partial = text;
      return [];
    }
    this.partial = text.slice(cut + 1);
    return [this.translate(text.slice(0, cut + 1))];
  }

  /** The unfinished last line, if any, completed. */
  end(): string[] {
    const rest = this.partial ? [this.translate(`${this.partial}\n`)] : [];
    this.partial = '';
    return rest;
  }

  private translate(lines: string): string {
    return lines
      .split('\n')
      .map((line) => {
        if (line.startsWith('data: [DONE]')) this.sawDone = true;
        // Builds up to ~b5966 sent a non-standard `error:` field that strict clients drop.
        if (line.startsWith('error:')) {
          this.sawError = true;
          return `data: ${JSON.stringify({ error: parseOr(line.slice('error:'.length).trim()) })}`;
        }
        if (line.startsWith('data:') && line.includes('"error"')) this.sawError = true;
        return line;
      })
      .join('\n');
  }
}

/** The stream's last lines: an error the client can show, then `[DONE]`. */
function endLines(error: string | null): string {
  const line = error ? `data: ${JSON.stringify({ error: { code: 502, message: error, type: 'server_error' } })}\n\n` : '';
  return `${line}data: [DONE]\n\n`;
}

async function collectJson(up: http.IncomingMessage): Promise<{ status: number; body: Record<string, unknown> }> {
  const status = up.statusCode ?? 500;
  const text = await streamText(up);
  try {
    return { status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  } catch (err) {
    if (status >= 400) return { status, body: { error: { message: text.slice(0, 500) } } };
    throw err;
  }
}

/** The upstream error as `{detail}`: new builds `{error: {message}}`, old ones `{error: "…"}` or `{message}`. */
function upstreamError(status: number, body: Record<string, unknown>): DomainError {
  const error = body.error;
  const message =
    typeof error === 'string' ? error : error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string' ? (error as { message: string }).message : typeof body.message === 'string' ? body.message : `HTTP ${status}`;
  // Loading (503) stays 503; the client's mistakes (context too long) keep their 4xx; the rest is a bad gateway.
  if (status === 503) return new DomainError('unavailable', `LLM server: ${message}`);
  if (status >= 400 && status < 500) return new DomainError('relayed', `LLM server: ${message}`, undefined, status);
  return new DomainError('bad_gateway', `LLM server: ${message}`);
}

/** Every answer carries `usage`; builds that only report `timings` get it computed from them. */
function withUsage(body: Record<string, unknown>): Record<string, unknown> {
  if (body.usage && typeof body.usage === 'object') return body;
  const timings = body.timings as { prompt_n?: number; predicted_n?: number; cache_n?: number } | undefined;
  if (!timings) return body;
  const prompt = (timings.prompt_n ?? 0) + (timings.cache_n ?? 0);
  const completion = timings.predicted_n ?? 0;
  return { ...body, usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
}

/** JSON when it parses, else the text as an error message. */
function parseOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { message: text };
  }
}
