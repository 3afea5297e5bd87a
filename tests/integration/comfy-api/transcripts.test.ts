/**
 * The recorded ComfyUI 0.29.0 transcripts replayed through Studio's door (issue 44): the uploads
 * and prompts a client sent, sent to `/comfy` with a key, against Studio's stand-in engine. The
 * engine's messages about each prompt must reach the client in the recorded order (Studio's own
 * `status` frames and the feature-flag echo left aside: Studio's queue, not the engine's, is the
 * one a door client hears about), and refused prompts answer the recorded status and body shape.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';
import { isWsIn, loadTranscripts, shapeDiff, signature, type HttpStep, type LogEntry } from '../../helpers/transcripts.js';

/** Scenarios of one client submitting prompts (the others: system answers, views, the engine's own queue tricks). */
const REPLAYED = ['02-success', '04-unknown-class', '05-missing-input', '06-bad-file', '07-out-of-range', '08-partial-node-errors', '10-ws-binary-type4', '13-add-noise-blur'];
/**
 * Differs on purpose: 09's SaveImage prefix `../../escape/x` fails on the engine (a path out of its
 * output folder); Studio points every output into the job's folder, so the prompt succeeds there.
 */
const ON_PURPOSE = '09-runtime-error';
const IGNORED = new Set(['status', 'feature_flags']);
const transcripts = loadTranscripts();
let t: TestStudio;
const renames = new Map<string, string>();
const uploads = new Map<string, Buffer>();

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '20', STANDIN_NODE_MS: '30', COMFY_API: 'on' } });
  await until(async () => (await t.studio.engineModule.client.queue().catch(() => null)) !== null, 'the stand-in', 30_000);
  uploads.set('2788', await sharp({ create: { width: 40, height: 30, channels: 4, background: '#3366cc80' } }).png().toBuffer());
  uploads.set('3058', await sharp({ create: { width: 48, height: 32, channels: 3, background: '#cc6633' } }).png().toBuffer());
  // The recorded uploads, through the door: later scenarios name the files (Studio names them anew).
  for (const entry of transcripts.find((s) => s.scenario === '01-upload')!.log) {
    if (!('http' in entry) || entry.http.method !== 'POST' || entry.response.status !== 200) continue;
    const res = await fetch(`${t.url}/comfy${entry.http.path}`, { method: 'POST', headers: { 'X-API-Key': t.apiKey }, body: form(entry.http) });
    const theirs = (entry.response.json as { name?: string }).name;
    const ours = ((await res.json()) as { name?: string }).name;
    if (theirs && ours) renames.set(theirs, ours);
  }
}, 60_000);

afterAll(async () => {
  await t?.stop();
});

describe("the engine's recorded transcripts through Studio's door", () => {

  for (const transcript of transcripts.filter((s) => REPLAYED.includes(s.scenario))) {
    it(transcript.scenario, async () => {
      expect(await replay(transcript.log)).toEqual([]);
    }, 30_000);
  }
  // After the others, as recorded: the engine has the loaded image cached by then.
  it(`${ON_PURPOSE}: the escaping prefix is kept in the job folder, and the prompt succeeds`, async () => {
    const problems = await replay(transcripts.find((s) => s.scenario === ON_PURPOSE)!.log);
    expect(problems.join('\n')).toMatch(/got {6}execution_start, execution_cached, progress_state, executing\(2\), executed\(2\), progress_state, execution_success, executing\(null\)/);
  }, 30_000);
});

type Received = { type: string; data: Record<string, unknown> } | { binary: true; type: number; format?: number };

async function replay(log: LogEntry[]): Promise<string[]> {
  const problems: string[] = [];
  const received: Received[] = [];
  let socket: WebSocket | null = null;
  for (const entry of log) {
    if ('note' in entry && entry.note.startsWith('ws connect')) {
      socket = await connect(/clientId=([^ ]+)/.exec(entry.note)?.[1] ?? 'replay', received);
    } else if ('ws' in entry && entry.ws === 'out') {
      socket?.send(JSON.stringify(entry.msg));
    } else if ('http' in entry && entry.http.method === 'POST' && entry.http.path === '/prompt') {
      const res = await fetch(`${t.url}/comfy/prompt`, { method: 'POST', headers: { 'X-API-Key': t.apiKey, 'Content-Type': 'application/json' }, body: rename(JSON.stringify(entry.http.body)) });
      if (res.status !== entry.response.status) problems.push(`POST /prompt: status ${res.status}, recorded ${entry.response.status}`);
      const body = (await res.json()) as unknown;
      for (const d of shapeDiff(entry.response.json, body)) problems.push(`POST /prompt: ${d}`);
    }
  }
  const want = log.filter(isWsIn).map((e) => signature('msg' in e ? e.msg : e)).filter((s) => !IGNORED.has(s));
  if (socket) {
    await until(() => received.map(signature).filter((s) => !IGNORED.has(s)).length >= want.length || null, 'the recorded messages', 15_000).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    socket.close();
  }
  const got = received.map(signature).filter((s) => !IGNORED.has(s));
  if (JSON.stringify(want) !== JSON.stringify(got)) problems.push(`ws order:\n  recorded ${want.join(', ')}\n  got      ${got.join(', ')}`);
  return problems;
}

async function connect(clientId: string, received: Received[]): Promise<WebSocket> {
  const socket = new WebSocket(`${t.url.replace('http', 'ws')}/comfy/ws?clientId=${clientId}`, { headers: { Authorization: `Bearer ${t.apiKey}` } });
  socket.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) received.push(JSON.parse(data.toString()) as Received);
    else received.push({ binary: true, type: data.readUInt32BE(0), ...(data.readUInt32BE(0) === 1 ? { format: data.readUInt32BE(4) } : {}) });
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return socket;
}

function form(step: HttpStep): FormData {
  const body = new FormData();
  for (const part of (step.body as { multipart?: Array<Record<string, string>> }).multipart ?? []) {
    for (const [name, value] of Object.entries(part)) {
      const file = /^<file (.+), (\d+) bytes>$/.exec(value);
      if (file) body.append(name, new Blob([new Uint8Array(uploads.get(file[2]!) ?? Buffer.alloc(0))], { type: 'image/png' }), file[1]);
      else body.append(name, value);
    }
  }
  return body;
}

function rename(text: string): string {
  let out = text;
  for (const [from, to] of renames) out = out.split(from).join(to);
  return out;
}
