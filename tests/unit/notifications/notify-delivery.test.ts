/**
 * The webhook signature a receiver checks, the retry waits, and which answers are retried: a
 * delivery against a scripted fetch (no network), recording each attempt as the page shows it.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliver, MAX_ATTEMPTS, retryDelay } from '../../../server/notifications/notify-delivery.js';
import type { NotifyMessage } from '../../../server/notifications/notify-message.js';
import { sendOnce, webhookSignature } from '../../../server/notifications/notify-senders.js';

const message: NotifyMessage = { event: 'job.completed', title: 'Café is done', text: 'Job completed in 3s', link: 'http://studio.lan:8000/jobs/p1', tags: ['white_check_mark'], urgent: false, image: null, data: { prompt_id: 'p1' } };
const webhook = { kind: 'webhook' as const, url: 'http://receiver.test/hook', secret: 'whsec_abc', token: null };

function scripted(statuses: Array<number | 'down'>, seen: Request[] = []): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    seen.push(new Request(url, init));
    const next = statuses.shift() ?? 200;
    if (next === 'down') throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    return new Response('{}', { status: next, headers: next === 429 ? { 'Retry-After': '30' } : {} });
  }) as typeof fetch;
}

describe('webhook signature', () => {
  it('is HMAC-SHA256 of "<timestamp>.<body>" with the secret, as a receiver recomputes it', async () => {
    const seen: Request[] = [];
    await sendOnce(webhook, message, scripted([200], seen), () => 1_700_000_000_000);
    const req = seen[0]!;
    const body = await req.text();
    expect(req.headers.get('x-studio-timestamp')).toBe('1700000000');
    const expected = `sha256=${crypto.createHmac('sha256', 'whsec_abc').update(`1700000000.${body}`).digest('hex')}`;
    expect(req.headers.get('x-studio-signature')).toBe(expected);
    expect(webhookSignature('other', '1700000000', body)).not.toBe(expected);
  });

  it('encodes a non-ASCII ntfy title as RFC 2047', async () => {
    const seen: Request[] = [];
    await sendOnce({ kind: 'ntfy', url: 'http://ntfy.test/t', secret: null, token: null }, message, scripted([200], seen));
    expect(seen[0]!.headers.get('title')).toBe(`=?UTF-8?B?${Buffer.from('Café is done').toString('base64')}?=`);
    expect(await seen[0]!.text()).toBe('Job completed in 3s');
  });
});

describe('delivery with retries', () => {
  it('waits 5, 10, 20, 40 s between five attempts (the house backoff), longer when the receiver asks', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, null))).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(retryDelay(1, 30_000)).toBe(30_000);
    expect(retryDelay(1, 3_600_000)).toBe(600_000);
    expect(MAX_ATTEMPTS).toBe(5);
  });

  it('retries no answer, 429 and 5xx, records each attempt, and gives up after the last', async () => {
    const saved: Array<{ status: string; attempts: number }> = [];
    const waits: number[] = [];
    const run = deliver(webhook, message, { fetchImpl: scripted(['down', 429, 503, 500, 502]), sleep: async (ms) => void waits.push(ms), stopped: () => false, now: Date.now, save: (d) => saved.push(d) });
    expect((await run.first).status).toBe('retrying');
    const last = await run.done;
    expect(last).toMatchObject({ status: 'failed', attempts: 5, http_status: 502 });
    expect(last.detail).toMatch(/gave up after 5 attempts/);
    expect(saved.map((d) => `${d.status}:${d.attempts}`)).toEqual(['retrying:1', 'retrying:2', 'retrying:3', 'retrying:4', 'failed:5']);
    expect(waits).toEqual([5_000, 30_000, 20_000, 40_000]);
  });

  it('ends at once on a refusal (another 4xx) and on success', async () => {
    const refused = await deliver(webhook, message, { fetchImpl: scripted([401]), sleep: async () => undefined, stopped: () => false, now: Date.now, save: () => undefined }).done;
    expect(refused).toMatchObject({ status: 'failed', attempts: 1, http_status: 401 });
    expect(refused.detail).toMatch(/refused the credentials/);
    const ok = await deliver(webhook, message, { fetchImpl: scripted([503, 200]), sleep: async () => undefined, stopped: () => false, now: Date.now, save: () => undefined }).done;
    expect(ok).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('makes no further attempt once Studio stops', async () => {
    let stopped = false;
    const run = deliver(webhook, message, { fetchImpl: scripted([503, 200]), sleep: async () => void (stopped = true), stopped: () => stopped, now: Date.now, save: () => undefined });
    expect(await run.done).toMatchObject({ status: 'retrying', attempts: 1 });
  });
});
