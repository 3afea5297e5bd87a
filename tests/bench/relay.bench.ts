/**
 * Relay latency: from a progress message the engine sends to its arrival at Studio WebSocket
 * clients, p50/p99 over every delivery, with 1, 50 and 200 clients; then a 1 MB preview frame to
 * 50 clients. Studio runs as its own process (compiled) against a fake engine in this process,
 * which also hosts the clients, so send and receive times come from one clock. Reference: a bare
 * `ws` relay process that forwards the engine's frames as they are to the same number of clients.
 *
 * Both relays are fed alike (the same frames from the same process, one hop each to the same
 * number of clients) and take turns in short blocks, both sets of clients connected throughout:
 * on a shared machine the load of other work changes from second to second, and with a few long
 * rounds per side a burst that hit one side's round alone decided the p99 ratio (the same code
 * measured anywhere from 0.4× to 8× at one client). Each block starts with a few unmeasured
 * messages, so deliveries of the other relay's block still in flight are not counted against it.
 *
 * Studio runs as users run it: `start.cjs` is what `npm start` runs. Both sides keep Node's defaults.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { freePort } from '../helpers/ports.js';
import { execute } from '../helpers/runner.js';
import { startStudioProcess } from '../helpers/studio-process.js';
import { TEST_API_KEY } from '../helpers/studio.js';
import { TARGETS, type TargetRow } from './targets.js';

/**
 * Blocks per relay and count of clients, taken in turns (the first of each pair alternates): 4 800
 * measured messages per relay. The p99 is over deliveries, but the deliveries of one message share
 * its fate (a pause in either relay, or in this process, delays it to every client), so what counts
 * is how many messages: with 12 blocks (1 200 messages) the same build measured 0.35× to 1.64× at
 * one client and 0.92× to 1.44× at 200 between runs. Each count takes ~45 s.
 */
const BLOCKS = 48;
/** Measured messages per block. */
const BLOCK_MESSAGES = 100;
/** Unmeasured messages at the start of each block. */
const BLOCK_WARMUP = 5;
/** Unmeasured messages to each relay after its clients connected. */
const WARMUP = 30;
const GAP_MS = 4;
const PREVIEWS = 20;
const PREVIEW_GAP_MS = 150;
const PREVIEW_BYTES = 1024 * 1024;

/** The engine's `/ws`, `/system_stats`, `/prompt`, `/history`, `/queue`: just enough for Studio to submit and listen. */
interface FakeEngine {
  port: number;
  /** The engine-side socket of a client id, once connected. */
  socketOf(clientId: string): WebSocket | undefined;
  waitFor(clientId: string): Promise<WebSocket>;
  close(): Promise<void>;
}

/**
 * The nodes of the `image-filter` workflow as the real engine describes them (the stand-in's dump),
 * its one input image listed: Studio checks a graph against `/object_info` before it submits it.
 */
function benchObjectInfo(root: string): Record<string, unknown> {
  const all = JSON.parse(fs.readFileSync(path.join(root, 'resources', 'standin', 'object_info.comfyui-0.29.0.json'), 'utf8')) as Record<string, { input: { required: Record<string, unknown[]> } }>;
  const nodes = Object.fromEntries(['LoadImage', 'ImageAddNoise', 'ImageBlur', 'SaveImage'].map((name) => [name, structuredClone(all[name]!)]));
  nodes.LoadImage!.input.required.image![0] = ['bench.png'];
  return nodes;
}

async function startFakeEngine(root: string): Promise<FakeEngine> {
  const objectInfo = benchObjectInfo(root);
  const image = fs.readFileSync(path.join(root, 'resources', 'standin', 'image.png'));
  const sockets = new Map<string, WebSocket>();
  const waiters: Array<() => void> = [];
  let number = 0;
  const running: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/system_stats') return json({ system: { comfyui_version: 'bench' }, devices: [] });
    if (url.pathname === '/object_info') return json(objectInfo);
    // The job's input image: Studio asks the engine for it before submitting, as the engine would check it.
    if (url.pathname === '/view' && url.searchParams.get('filename') === 'bench.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(image);
    // The submitted prompt runs for the whole benchmark: Studio settles a prompt its engine does not list as lost.
    if (url.pathname === '/queue') return json({ queue_running: running.map((id, i) => [i, id, {}, {}, []]), queue_pending: [] });
    if (url.pathname.startsWith('/history')) return json({});
    if (url.pathname === '/prompt' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { prompt_id?: string };
        const id = body.prompt_id ?? `p${number}`;
        running.push(id);
        json({ prompt_id: id, number: number++, node_errors: {} });
      });
      return;
    }
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server, path: '/ws', perMessageDeflate: false });
  wss.on('connection', (ws, req) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('clientId') ?? '';
    sockets.set(id, ws);
    ws.on('error', () => {});
    for (const wake of waiters.splice(0)) wake();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeEngine = {
    port: (server.address() as AddressInfo).port,
    socketOf: (id) => sockets.get(id),
    async waitFor(id) {
      while (!sockets.get(id) || sockets.get(id)!.readyState !== WebSocket.OPEN) await new Promise<void>((r) => waiters.push(r));
      return sockets.get(id)!;
    },
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}

/** A bare relay: one client of the engine's socket, every frame forwarded as is to its own clients. */
const REFERENCE_RELAY = `
const WebSocket = require('ws');
const wss = new WebSocket.WebSocketServer({ port: Number(process.env.PORT), host: '127.0.0.1', perMessageDeflate: false });
const upstream = new WebSocket('ws://127.0.0.1:' + process.env.ENGINE_PORT + '/ws?clientId=reference', { perMessageDeflate: false });
upstream.on('message', (data, isBinary) => { for (const c of wss.clients) if (c.readyState === 1) c.send(data, { binary: isBinary }); });
wss.on('listening', () => console.log('ready'));
`;

/** Which progress message a text frame is (its sequence number), or undefined for other frames. */
type SeqReader = (frame: Buffer) => number | undefined;

interface Client {
  ws: WebSocket;
  /** Receive time and sequence number of each progress message, in arrival order. */
  arrivals: number[];
  seqs: number[];
  /** [receive time, frame] of each binary frame. */
  binary: Array<[number, Buffer]>;
}

/**
 * The number after `key` in a text frame that starts with `prefix`, read off the bytes. The receive
 * path should cost the same for both relays: Studio's frames are three times the size of the
 * reference's, and keeping every frame until the end of a round (as this bench once did) made the
 * memory this process holds, and so its garbage collection, grow with Studio's frames only.
 */
function numberAfter(prefix: string, key: string): SeqReader {
  const head = Buffer.from(prefix);
  const field = Buffer.from(key);
  return (frame) => {
    if (frame.length < head.length || frame.compare(head, 0, head.length, 0, head.length) !== 0) return undefined;
    let i = frame.indexOf(field, head.length);
    if (i < 0) return undefined;
    let n = 0;
    const start = (i += field.length);
    for (; i < frame.length && frame[i]! >= 0x30 && frame[i]! <= 0x39; i++) n = n * 10 + frame[i]! - 0x30;
    return i > start ? n : undefined;
  };
}

async function connectClients(url: string, count: number, headers: Record<string, string>, seqOf: SeqReader): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    const client: Client = { ws, arrivals: [], seqs: [], binary: [] };
    // Only numbers are kept: nothing this process holds grows with the size of the frames.
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const at = performance.now();
      if (isBinary) return void client.binary.push([at, data]);
      const seq = seqOf(data);
      if (seq === undefined) return;
      client.arrivals.push(at);
      client.seqs.push(seq);
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    clients.push(client);
  }
  return clients;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One relay under test: the engine socket that feeds it, its clients, and what it was sent. */
interface Side {
  engine: WebSocket;
  clients: Client[];
  seqOf: SeqReader;
  /** Send time of each measured sequence number. */
  sent: Map<number, number>;
  next: number;
  result: { latencies: number[]; missing: number };
}

/** Send `count` progress messages `GAP_MS` apart, recording the send times of measured ones. */
async function driveProgress(side: Side, promptId: string, count: number, measured: boolean): Promise<void> {
  for (let i = 0; i < count; i++) {
    const seq = side.next++;
    const frame = JSON.stringify({ type: 'progress', data: { value: seq, max: 1_000_000, prompt_id: promptId, node: '2' } });
    if (measured) side.sent.set(seq, performance.now());
    side.engine.send(frame);
    await sleep(GAP_MS);
  }
}

/** Move what the side's clients received into its latencies (between blocks: memory stays small). */
function collect(side: Side): void {
  for (const client of side.clients) {
    client.seqs.forEach((seq, i) => {
      const t0 = side.sent.get(seq);
      if (t0 !== undefined) side.result.latencies.push(client.arrivals[i]! - t0);
    });
    client.arrivals = [];
    client.seqs = [];
  }
}

/** Both relays with `count` clients each, in alternating blocks; latencies per delivery of each. */
async function measureProgress(count: number, promptId: string, studio: Omit<Side, 'clients' | 'sent' | 'next' | 'result'> & { url: string }, reference: typeof studio): Promise<Side[]> {
  const sides: Side[] = [];
  for (const { url, ...feed } of [studio, reference]) {
    const headers: Record<string, string> = url === studio.url ? { 'X-API-Key': TEST_API_KEY } : {};
    sides.push({ ...feed, clients: await connectClients(url, count, headers, feed.seqOf), sent: new Map(), next: 1, result: { latencies: [], missing: 0 } });
  }
  for (const side of sides) await driveProgress(side, promptId, WARMUP, false);
  for (let block = 0; block < BLOCKS; block++) {
    for (const side of block % 2 === 0 ? sides : [...sides].reverse()) {
      await driveProgress(side, promptId, BLOCK_WARMUP, false);
      await driveProgress(side, promptId, BLOCK_MESSAGES, true);
      collect(side);
    }
  }
  await sleep(300);
  for (const side of sides) {
    collect(side);
    side.result.latencies.sort((a, b) => a - b);
    side.result.missing = side.clients.length * side.sent.size - side.result.latencies.length;
    for (const c of side.clients) c.ws.terminate();
  }
  return sides;
}

/** A type 4 preview frame whose image is JPEG-signed (Studio relays only images) and carries the sequence number after the signature. */
function previewFrame(promptId: string, seq: number): Buffer {
  const meta = Buffer.from(JSON.stringify({ node_id: '2', prompt_id: promptId, display_node_id: '2', image_type: 'image/jpeg' }));
  const header = Buffer.alloc(8);
  header.writeUInt32BE(4, 0);
  header.writeUInt32BE(meta.length, 4);
  const image = Buffer.alloc(PREVIEW_BYTES, 7);
  image.writeUInt32BE(0xffd8ffe0, 0);
  image.writeUInt32BE(seq, 4);
  return Buffer.concat([header, meta, image]);
}

async function drivePreviews(engine: WebSocket, promptId: string): Promise<Map<number, number>> {
  const sent = new Map<number, number>();
  for (let seq = 1; seq <= PREVIEWS; seq++) {
    const frame = previewFrame(promptId, seq);
    sent.set(seq, performance.now());
    engine.send(frame, { binary: true });
    await sleep(PREVIEW_GAP_MS);
  }
  await sleep(500);
  return sent;
}

function binaryLatencies(clients: Client[], sent: Map<number, number>): { latencies: number[]; missing: number } {
  const latencies: number[] = [];
  let delivered = 0;
  for (const client of clients) {
    for (const [at, data] of client.binary) {
      const image = data.subarray(8 + data.readUInt32BE(4));
      const t0 = sent.get(image.readUInt32BE(4));
      if (t0 === undefined) continue;
      latencies.push(at - t0);
      delivered++;
    }
  }
  return { latencies: latencies.sort((a, b) => a - b), missing: clients.length * sent.size - delivered };
}

function line(label: string, studio: { latencies: number[]; missing: number }, reference: { latencies: number[]; missing: number }): string {
  const s50 = percentile(studio.latencies, 50);
  const s99 = percentile(studio.latencies, 99);
  const r50 = percentile(reference.latencies, 50);
  const r99 = percentile(reference.latencies, 99);
  const drop = studio.missing || reference.missing ? ` (undelivered: studio ${studio.missing}, reference ${reference.missing})` : '';
  return `${label}: studio p50 ${s50.toFixed(2)} ms p99 ${s99.toFixed(2)} ms; bare ws relay p50 ${r50.toFixed(2)} ms p99 ${r99.toFixed(2)} ms; p99 ratio ${(s99 / r99).toFixed(2)}${drop}`;
}

async function startReference(enginePort: number, root: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', REFERENCE_RELAY], {
    cwd: root,
    env: { ...process.env, PORT: String(port), ENGINE_PORT: String(enginePort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`reference relay exited with ${code}`)));
  });
  return { port, child };
}

/** Run the relay benchmark and print its lines. */
export async function run(root: string): Promise<TargetRow[]> {
  const rows: TargetRow[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-relay-'));
  const engine = await startFakeEngine(root);
  const studio = await startStudioProcess(
    { STUDIO_DIR: dir, ENGINE_MODE: 'external', ENGINE_PORT: String(engine.port) },
    { compiled: true },
  );
  const reference = await startReference(engine.port, root);
  try {
    const clientId = fs.readFileSync(path.join(dir, 'jobs', 'engine-client-id'), 'utf8').trim();
    const studioSocket = await engine.waitFor(clientId);
    const referenceSocket = await engine.waitFor('reference');
    const { prompt_id: promptId } = await execute(studio.api, 'image-filter', { params: { _existing_input_image: 'bench.png' } });
    studioSocket.send(JSON.stringify({ type: 'execution_start', data: { prompt_id: promptId } }));

    const studioWs = `${studio.url.replace('http', 'ws')}/ws`;
    const referenceWs = `ws://127.0.0.1:${reference.port}`;
    // Studio relays the engine's `progress` as `job.progress` with the step in `progress.step`.
    const studioSeq = numberAfter('{"type":"job.progress",', '"step":');
    const referenceSeq = numberAfter('{"type":"progress",', '"value":');
    const noText: SeqReader = () => undefined;

    console.log(
      `relay of a progress message, ${BLOCKS} alternating blocks per relay of ${BLOCK_MESSAGES} messages ${GAP_MS} ms apart (each after ${BLOCK_WARMUP} unmeasured), latency per delivery:`,
    );
    for (const count of [1, 50, 200]) {
      const [{ result: s }, { result: r }] = (await measureProgress(
        count,
        promptId,
        { url: studioWs, engine: studioSocket, seqOf: studioSeq },
        { url: referenceWs, engine: referenceSocket, seqOf: referenceSeq },
      )) as [Side, Side];
      console.log(line(`  ${String(count).padStart(3)} client(s)`, s, r));
      const ratio = percentile(s.latencies, 99) / percentile(r.latencies, 99);
      rows.push({
        measure: `progress relay p99, ${count} client(s)`,
        target: TARGETS.relay.text,
        value: `${ratio.toFixed(2)}× (${percentile(s.latencies, 99).toFixed(2)} vs ${percentile(r.latencies, 99).toFixed(2)} ms)${s.missing ? `, ${s.missing} undelivered` : ''}`,
        met: ratio <= TARGETS.relay.ratio && s.missing === 0,
      });
    }

    const sClients = await connectClients(studioWs, 50, { 'X-API-Key': TEST_API_KEY }, noText);
    const s = binaryLatencies(sClients, await drivePreviews(studioSocket, promptId));
    for (const c of sClients) c.ws.terminate();
    const rClients = await connectClients(referenceWs, 50, {}, noText);
    const r = binaryLatencies(rClients, await drivePreviews(referenceSocket, promptId));
    for (const c of rClients) c.ws.terminate();
    console.log(`relay of a 1 MB preview frame (${PREVIEWS} frames ${PREVIEW_GAP_MS} ms apart), latency per delivery:`);
    console.log(line('   50 clients', s, r));
    return rows;
  } finally {
    reference.child.kill('SIGTERM');
    await studio.stop();
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
