/**
 * The hub's broadcasts, framed once and written to every client's connection: what each client
 * reads must be exactly the message, as a text (JSON) or binary (preview) frame, at every length
 * the frame header encodes differently (7-bit, 16-bit and 64-bit lengths); a client that stops
 * reading stops getting previews once 4 MB are queued for it; upgrades go only to known paths.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { StudioEvent } from '../../../server/contracts/events.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => {
  await t.stop();
});

interface Received {
  data: Buffer;
  binary: boolean;
}

interface Client {
  ws: WebSocket;
  got: Received[];
}

function connect(path = '/ws'): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}${path}`, { headers: { 'X-API-Key': t.apiKey } });
    const got: Received[] = [];
    ws.on('message', (data: Buffer, binary: boolean) => got.push({ data, binary }));
    ws.on('open', () => resolve({ ws, got }));
    ws.on('error', reject);
  });
}

/** The status an upgrade to `path` is answered with (101: it became a WebSocket). */
function upgradeStatus(path: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}${path}`, { headers: { 'X-API-Key': t.apiKey } });
    ws.on('unexpected-response', (_req, res: http.IncomingMessage) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('error', () => resolve(-1));
  });
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A message of the event kind whose JSON is padded by `size` characters (multi-byte ones included). */
function event(n: number, size: number): StudioEvent {
  return { id: `evt_test${n}`, timestamp: '', type: 'test', severity: 'info', message: 'é€'.repeat(Math.ceil(size / 2)).slice(0, size), data: { n } };
}

const binaries = (c: Client) => c.got.filter((m) => m.binary);
/** The test's own text messages (Studio also pushes telemetry and state changes meanwhile). */
const events = (c: Client) =>
  c.got.filter((m) => !m.binary).map((m) => JSON.parse(m.data.toString('utf8')) as { type: string; data: StudioEvent }).filter((m) => m.type === 'event' && m.data.id.startsWith('evt_test'));

describe('WebSocket broadcasts', () => {
  it('reach every client as one text frame of exactly the message, at every header length', async () => {
    const clients = await Promise.all([connect(), connect(), connect()]);
    // JSON of under 126 bytes, of 126 to 65 535 (16-bit length) and of more (64-bit length).
    const sent = [0, 30, 200, 70_000, 300_000].map((size, i) => event(i + 1, size));
    expect(Buffer.byteLength(JSON.stringify({ type: 'event', data: sent[0] }))).toBeLessThan(126);
    for (const e of sent) t.studio.hub.broadcast('event', e);
    await until(() => clients.every((c) => events(c).length === sent.length));
    for (const c of clients) {
      expect(c.got.every((m) => !m.binary)).toBe(true);
      expect(events(c)).toEqual(sent.map((e) => ({ type: 'event', data: e })));
      c.ws.close();
    }
  });

  it('send previews as binary frames, the same bytes to every client', async () => {
    const clients = await Promise.all([connect(), connect()]);
    const payloads = [1, 125, 126, 65_535, 65_536, 1024 * 1024].map((size, i) => Buffer.alloc(size, i + 1));
    for (const p of payloads) t.studio.hub.broadcastBinary(undefined, p);
    await until(() => clients.every((c) => binaries(c).length === payloads.length));
    for (const c of clients) {
      // Compared as bytes (a deep equality of megabytes would take seconds).
      expect(binaries(c).map((m, i) => m.data.equals(payloads[i]!))).toEqual(payloads.map(() => true));
      c.ws.close();
    }
  });

  it('send a binary frame given in parts as one frame of the parts one after the other', async () => {
    const client = await connect();
    // Lengths either side of the 7-bit and 16-bit length fields, the parts' sum deciding the header.
    const cases = [[1, 124], [100, 26], [65_000, 535], [65_000, 536], [8, 1024 * 1024]].map((sizes, i) => sizes.map((size, j) => Buffer.alloc(size, 10 * i + j + 1)));
    for (const parts of cases) t.studio.hub.broadcastBinary(undefined, ...parts);
    await until(() => binaries(client).length === cases.length);
    expect(binaries(client).map((m, i) => m.data.equals(Buffer.concat(cases[i]!)))).toEqual(cases.map(() => true));
    client.ws.close();
  });

  it('skip previews for a client that stopped reading once 4 MB are queued for it, and not for one that reads', async () => {
    const reader = await connect();
    const stalled = await connect();
    stalled.ws.pause();
    const count = 48;
    const preview = Buffer.alloc(1024 * 1024, 9);
    for (let i = 0; i < count; i++) {
      t.studio.hub.broadcastBinary(undefined, preview);
      await until(() => binaries(reader).length === i + 1);
    }
    // Text frames are never skipped: once the marker arrives, every preview written before it has too.
    t.studio.hub.broadcast('event', event(999, 0));
    stalled.ws.resume();
    await until(() => events(stalled).length === 1 && events(reader).length === 1);
    expect(binaries(reader)).toHaveLength(count);
    // What the kernel's socket buffers held plus the 4 MB the hub lets queue; the rest was skipped.
    expect(binaries(stalled).length).toBeGreaterThan(0);
    expect(binaries(stalled).length).toBeLessThan(count / 2);
    reader.ws.close();
    stalled.ws.close();
  });

  it('upgrades /ws (with a query or a trailing slash) and refuses other paths with 404', async () => {
    expect(await upgradeStatus('/ws')).toBe(101);
    expect(await upgradeStatus('/ws/?from=test')).toBe(101);
    expect(await upgradeStatus('/api/health')).toBe(404);
    expect(await upgradeStatus('/wsx')).toBe(404);
  });
});
