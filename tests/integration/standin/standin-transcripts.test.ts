/**
 * The stand-in against what a real ComfyUI 0.29.0 answered: every recorded scenario is replayed
 * in order against one stand-in (later scenarios read files the earlier ones made, as when they
 * were recorded), and each answer must have the recorded status, Content-Type and JSON shape, and
 * the WebSocket messages must come in the recorded order with the recorded shapes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import { isWsIn, loadTranscripts, shapeDiff, signature, type HttpStep, type LogEntry, type RecordedResponse } from '../../helpers/transcripts.js';

type Received = { type: string; data: Record<string, unknown> } | { binary: true; type: number; format?: number; metadata?: Record<string, unknown> };

const transcripts = loadTranscripts();
/**
 * Where the stand-in differs on purpose (server/standin/README.md): it reports a CUDA GPU (index 0)
 * where the recording machine had only a CPU (index null).
 */
const ON_PURPOSE = ['$.devices[0].index: recorded null, got number'];
let engine: StandinEngine;
let root: string;
/** Uploads in the recordings are named by size; two different real PNGs stand in for them. */
const uploads = new Map<string, Buffer>();
/** Recorded file names and ETags → the stand-in's own (temp names are random, ETags carry mtimes). */
const renames = new Map<string, string>();

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'standin-replay-'));
  const models = path.join(root, 'models');
  fs.mkdirSync(path.join(models, 'checkpoints'), { recursive: true });
  engine = await startStandinEngine({
    port: 0,
    inputDir: path.join(root, 'input'),
    outputDir: path.join(root, 'output'),
    tempDir: path.join(root, 'temp'),
    stepMs: 20,
    // Slow enough that the recorded interrupt lands while the first node runs, as it did.
    nodeMs: 250,
    modelFolders: new Map([['checkpoints', [path.join(models, 'checkpoints')]]]),
  });
  uploads.set('2788', await sharp({ create: { width: 40, height: 30, channels: 4, background: '#3366cc80' } }).png().toBuffer());
  uploads.set('3058', await sharp({ create: { width: 48, height: 32, channels: 3, background: '#cc6633' } }).png().toBuffer());
});

afterAll(async () => {
  await engine?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('stand-in replaying the recorded ComfyUI 0.29.0 transcripts', () => {
  for (const transcript of transcripts) {
    it(transcript.scenario, async () => {
      const problems = await replay(transcript.log);
      expect(problems.filter((p) => !ON_PURPOSE.some((allowed) => p.includes(allowed)))).toEqual([]);
    });
  }
});

/** Replay one scenario; returns every difference found, as readable lines. */
async function replay(log: LogEntry[]): Promise<string[]> {
  const problems: string[] = [];
  const received: Received[] = [];
  let socket: WebSocket | null = null;
  const inSoFar: string[] = [];
  for (const entry of log) {
    if ('note' in entry && entry.note.startsWith('ws connect')) {
      const clientId = /clientId=([^ ]+)/.exec(entry.note)?.[1] ?? 'replay';
      socket = await connect(clientId, received);
    } else if ('http' in entry) {
      // Send once the engine has sent the message it had last sent by then in the recording.
      const last = inSoFar.at(-1);
      const times = inSoFar.filter((m) => m === last).length;
      if (last) await waitFor(() => received.filter((m) => signature(m) === last).length >= times, 3_000);
      problems.push(...(await replayHttp(entry.http, entry.response)));
    } else if ('ws' in entry && entry.ws === 'out') {
      socket?.send(JSON.stringify(entry.msg));
    } else if (isWsIn(entry)) {
      inSoFar.push(signature('msg' in entry ? entry.msg : entry));
    }
  }
  const recorded = log.filter(isWsIn);
  if (socket) {
    await waitFor(() => received.length >= recorded.length, 5_000);
    await new Promise((r) => setTimeout(r, 300));
    socket.close();
  }
  const want = recorded.map((e) => signature('msg' in e ? e.msg : e));
  const got = received.map((m) => signature(m));
  if (JSON.stringify(want) !== JSON.stringify(got)) {
    problems.push(`ws order:\n  recorded ${want.join(', ')}\n  got      ${got.join(', ')}`);
    return problems;
  }
  recorded.forEach((entry, i) => {
    const mine = received[i] as Received;
    if ('msg' in entry && !('binary' in mine)) {
      learnRenames(entry.msg.data, mine.data);
      for (const d of shapeDiff(entry.msg.data, mine.data, want[i])) problems.push(`ws ${d}`);
    } else if ('binary' in entry && 'binary' in mine && entry.metadata) {
      for (const d of shapeDiff(entry.metadata, mine.metadata, `${want[i]} metadata`)) problems.push(`ws ${d}`);
    }
  });
  return problems;
}

async function connect(clientId: string, received: Received[]): Promise<WebSocket> {
  const socket = new WebSocket(`${engine.url.replace('http', 'ws')}/ws?clientId=${clientId}`);
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) {
      received.push(JSON.parse(data.toString()) as Received);
      return;
    }
    const type = data.readUInt32BE(0);
    if (type === 4) {
      const length = data.readUInt32BE(4);
      received.push({ binary: true, type, metadata: JSON.parse(data.subarray(8, 8 + length).toString()) as Record<string, unknown> });
    } else {
      received.push({ binary: true, type, format: data.readUInt32BE(4) });
    }
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return socket;
}

async function replayHttp(step: HttpStep, recorded: RecordedResponse): Promise<string[]> {
  const where = `${step.method} ${step.path}${step.label ? ` (${step.label})` : ''}`;
  const res = await fetch(engine.url + rename(step.path), requestInit(step));
  const problems: string[] = [];
  if (res.status !== recorded.status) problems.push(`${where}: status ${res.status}, recorded ${recorded.status}`);
  const wantType = recorded.headers['content-type']?.split(';')[0];
  const gotType = res.headers.get('content-type')?.split(';')[0];
  if (wantType !== gotType) problems.push(`${where}: Content-Type ${gotType}, recorded ${wantType}`);
  const etag = res.headers.get('etag');
  if (etag && recorded.headers.etag) renames.set(recorded.headers.etag, etag);
  const body = Buffer.from(await res.arrayBuffer());
  if (recorded.empty && body.length > 0) problems.push(`${where}: body of ${body.length} bytes, recorded empty`);
  if (recorded.text !== undefined && body.toString() !== recorded.text) problems.push(`${where}: text ${JSON.stringify(body.toString())}`);
  // Three bytes tell the format (PIL's JPEGs carry a JFIF segment next, libjpeg's may not).
  if (recorded.binary && body.subarray(0, 3).toString('hex') !== recorded.binary.magic.slice(0, 6)) {
    problems.push(`${where}: binary starts ${body.subarray(0, 4).toString('hex')}, recorded ${recorded.binary.magic}`);
  }
  if (recorded.json !== undefined && recorded.json !== '<omitted>') {
    const json = JSON.parse(body.toString()) as unknown;
    // Prompt ids the engine made up: later requests name ours instead.
    const theirId = (recorded.json as { prompt_id?: unknown }).prompt_id;
    const ourId = (json as { prompt_id?: unknown } | null)?.prompt_id;
    if (typeof theirId === 'string' && typeof ourId === 'string') renames.set(theirId, ourId);
    // Whether a fast prompt is already in history right after submitting it is a race, in both engines.
    if (step.label?.startsWith('right after submit')) return problems;
    for (const d of shapeDiff(recorded.json, json)) problems.push(`${where}: ${d}`);
    if (process.env.REPLAY_DEBUG && problems.length > 0) console.log(where, JSON.stringify(json).slice(0, 600));
  }
  return problems;
}

function requestInit(step: HttpStep): RequestInit {
  // The recorded Host named the recording engine's port; our own Host stands for it.
  const headers = Object.fromEntries(Object.entries(step.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'host').map(([k, v]) => [k, rename(v)]));
  const body = step.body as { multipart?: Array<Record<string, string>>; raw?: string } | undefined;
  if (body?.multipart) {
    const form = new FormData();
    for (const part of body.multipart) {
      for (const [name, value] of Object.entries(part)) {
        const file = /^<file (.+), (\d+) bytes>$/.exec(value);
        if (file) form.append(name, new Blob([new Uint8Array(uploads.get(file[2] as string) ?? Buffer.alloc(0))], { type: 'image/png' }), file[1]);
        else form.append(name, value);
      }
    }
    return { method: step.method, headers, body: form };
  }
  if (body?.raw !== undefined) return { method: step.method, headers, body: body.raw };
  return { method: step.method, headers, body: body === undefined ? undefined : rename(JSON.stringify(body)) };
}

/** Output file names the recording used, mapped to the ones the stand-in chose. */
function learnRenames(recorded: Record<string, unknown>, mine: Record<string, unknown>): void {
  const names = (data: Record<string, unknown>): string[] => {
    const images = (data.output as { images?: Array<{ filename: string }> } | undefined)?.images ?? [];
    return images.map((i) => i.filename);
  };
  const theirs = names(recorded);
  names(mine).forEach((name, i) => theirs[i] && theirs[i] !== name && renames.set(theirs[i], name));
}

function rename(text: string): string {
  let out = text;
  for (const [from, to] of renames) {
    out = out.split(from).join(to);
    out = out.split(encodeURIComponent(from)).join(encodeURIComponent(to));
  }
  return out;
}

async function waitFor(ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
