/**
 * Local receivers for notification tests (issue 47): an ntfy-compatible server (it answers a
 * publish as ntfy does, `{id, time, event: "message", topic, message}`, and records each request)
 * and a webhook receiver that checks `X-Studio-Signature` against the secret it is given and can
 * fail its first deliveries with 503 to prove retries.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** Webhooks only: the signature matched the secret. */
  signed?: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answer the next `n` requests with this status (default 503). */
  failNext(n: number, status?: number): void;
  /** The webhook secret to check signatures against. */
  secret: string | null;
  close(): Promise<void>;
}

async function startReceiver(answer: (r: Received) => { status: number; body: string }, check?: (r: Received, secret: string | null) => boolean): Promise<Receiver> {
  let failing = 0;
  let failStatus = 503;
  const receiver: Receiver = {
    url: '',
    received: [],
    secret: null,
    failNext: (n, status = 503) => {
      failing = n;
      failStatus = status;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      if (check) r.signed = check(r, receiver.secret);
      receiver.received.push(r);
      if (failing > 0) {
        failing--;
        res.writeHead(failStatus, { 'Content-Type': 'text/plain' }).end('try later');
        return;
      }
      const { status, body } = answer(r);
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** ntfy's answer to a publish. */
export function startNtfy(): Promise<Receiver> {
  return startReceiver((r) => {
    const topic = r.path.split('/').filter(Boolean).pop() ?? '';
    const message = String(r.headers.message ?? (r.method === 'PUT' ? 'You received a file' : r.body.toString('utf8')));
    return { status: 200, body: JSON.stringify({ id: crypto.randomBytes(6).toString('hex'), time: Math.floor(Date.now() / 1000), event: 'message', topic, message }) };
  });
}

/** A webhook receiver that checks the signature: HMAC-SHA256 of "<timestamp>.<body>". */
export function startWebhook(): Promise<Receiver> {
  return startReceiver(
    (r) => ({ status: r.signed ? 200 : 401, body: JSON.stringify({ ok: r.signed }) }),
    (r, secret) => {
      const ts = String(r.headers['x-studio-timestamp'] ?? '');
      const sent = String(r.headers['x-studio-signature'] ?? '');
      if (!secret || !ts) return false;
      const expected = `sha256=${crypto.createHmac('sha256', secret).update(`${ts}.`).update(r.body).digest('hex')}`;
      return sent.length === expected.length && crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
    },
  );
}
