/**
 * The two receivers Studio speaks to, as they expect to be spoken to:
 * - ntfy (https://docs.ntfy.sh/publish/): a POST of the text to the topic URL with `Title`, `Tags`,
 *   `Priority` and `Click` headers; with an image, a PUT of the image with `Filename` and the text
 *   in `Message` (the phone shows the picture). Non-ASCII header values are RFC 2047 encoded, as
 *   ntfy reads them. A token goes as `Authorization: Bearer`.
 * - a webhook: a POST of JSON, signed: `X-Studio-Signature: sha256=<hex HMAC-SHA256 of
 *   "<X-Studio-Timestamp>.<body>" with the target's secret>`, so a receiver can check who sent it
 *   and refuse a replay.
 * Each attempt answers whether it was received, and whether trying again may help.
 */
import crypto from 'node:crypto';
import type { NotifyKind } from '../contracts/notifications.contract.js';
import { parseRetryAfter } from '../process/backoff.js';
import type { NotifyMessage } from './notify-message.js';

export interface SendTarget {
  kind: NotifyKind;
  url: string;
  secret: string | null;
  token: string | null;
}

export interface Attempt {
  ok: boolean;
  /** Worth trying again: no answer, 408, 429 or 5xx. */
  retry: boolean;
  status: number | null;
  detail: string;
  /** The receiver's `Retry-After`, when it sent one. */
  retryAfterMs: number | null;
}

const TIMEOUT_MS = 15_000;

/** `X-Studio-Signature`'s value for `body` sent at `timestamp` (seconds). */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** A header value ntfy accepts: ASCII as is, anything else as an RFC 2047 encoded word. */
function headerText(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

function ntfyRequest(target: SendTarget, m: NotifyMessage): RequestInit {
  const headers: Record<string, string> = { Title: headerText(m.title), Tags: m.tags.join(','), Priority: m.urgent ? 'high' : 'default' };
  if (m.link) headers.Click = m.link;
  if (target.token) headers.Authorization = `Bearer ${target.token}`;
  if (!m.image) return { method: 'POST', headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, body: m.text };
  return { method: 'PUT', headers: { ...headers, Filename: m.image.filename, Message: headerText(m.text) }, body: new Uint8Array(m.image.bytes) };
}

function webhookRequest(target: SendTarget, m: NotifyMessage, now: () => number): RequestInit {
  const body = JSON.stringify({
    event: m.event,
    title: m.title,
    text: m.text,
    link: m.link,
    data: m.data,
    thumbnail: m.image ? `data:image/jpeg;base64,${m.image.bytes.toString('base64')}` : null,
    sent_at: new Date(now()).toISOString(),
  });
  const timestamp = String(Math.floor(now() / 1000));
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'User-Agent': 'Studio-Notifications', 'X-Studio-Event': m.event, 'X-Studio-Timestamp': timestamp, 'X-Studio-Signature': webhookSignature(target.secret ?? '', timestamp, body) },
    body,
  };
}

/** One attempt to hand `message` to `target`. */
export async function sendOnce(target: SendTarget, message: NotifyMessage, fetchImpl: typeof fetch = fetch, now: () => number = Date.now): Promise<Attempt> {
  const init = target.kind === 'ntfy' ? ntfyRequest(target, message) : webhookRequest(target, message, now);
  let res: Response;
  try {
    res = await fetchImpl(target.url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { ok: false, retry: true, status: null, detail: `No answer from the receiver (${cause ?? (err as Error).message})`, retryAfterMs: null };
  }
  // The receiver's body is not passed on: a target may point anywhere on the LAN, and its answer
  // would show a member what an internal service says. The status and its meaning are enough.
  await res.body?.cancel().catch(() => undefined);
  if (res.ok) return { ok: true, retry: false, status: res.status, detail: `Received (HTTP ${res.status})`, retryAfterMs: null };
  const retry = res.status === 408 || res.status === 429 || res.status >= 500;
  const why = res.status === 401 || res.status === 403 ? 'the receiver refused the credentials (check the token)' : res.status === 404 ? 'no such topic or path' : retry ? 'the receiver is busy or failing' : 'the receiver refused the message';
  return { ok: false, retry, status: res.status, detail: `HTTP ${res.status}: ${why}`, retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), now()) };
}
