import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio({ heartbeatMs: 100 });
});
afterAll(async () => {
  await t.stop();
});

interface Frame {
  type: string;
  data: Record<string, unknown>;
  /** How the frame came: a browser reads JSON from text frames only. */
  binary: boolean;
}

function connect(options: WebSocket.ClientOptions = {}): Promise<{ ws: WebSocket; frames: Frame[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers: { 'X-API-Key': t.apiKey }, ...options });
    const frames: Frame[] = [];
    ws.on('message', (data: Buffer, binary: boolean) => frames.push({ ...(JSON.parse(data.toString('utf8')) as Frame), binary }));
    ws.on('open', () => resolve({ ws, frames }));
    ws.on('error', reject);
  });
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the Studio WebSocket', () => {
  it('greets with hello, then pushes every event as {type: "event", data}', async () => {
    const { ws, frames } = await connect();
    await until(() => frames.length >= 1);
    expect(frames[0]).toMatchObject({ type: 'hello', data: { engine: { mode: 'standin' }, maintenance: false, time_zone: 'Europe/Rome' }, binary: false });
    const event = t.studio.events.emit('job.queued', 'info', 'queued for the test', { prompt_id: 'p-ws' });
    await until(() => frames.length >= 2);
    expect(frames[1]).toEqual({ type: 'event', data: event, binary: false });
    ws.close();
  });

  it('drops a client that stops answering pings and keeps a live one', async () => {
    const live = await connect();
    const dead = await connect({ autoPong: false });
    let deadClosed = false;
    dead.ws.on('close', () => (deadClosed = true));
    await until(() => deadClosed, 3000);
    expect(live.ws.readyState).toBe(WebSocket.OPEN);
    await until(() => t.studio.hub.size === 1);
    live.ws.close();
  });
});
