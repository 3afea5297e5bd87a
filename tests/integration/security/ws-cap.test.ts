/**
 * A LAN address may hold only so many Studio WebSockets at once (slow-client and socket
 * exhaustion). Needs a non-loopback address of this machine to connect from; says so if none.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_WS_PER_ADDRESS } from '../../../server/http/app.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
if (!lan) console.warn('[ws-cap] skipped: this machine has no non-loopback IPv4 address to connect from');

let t: TestStudio;
const open: WebSocket[] = [];

describe.skipIf(!lan)('WebSocket clients per LAN address', () => {
  beforeAll(async () => {
    t = await startTestStudio({ env: { STUDIO_HOST: lan! } });
  });
  afterAll(async () => {
    for (const ws of open) ws.terminate();
    await t?.stop();
  });

  function connect(): Promise<number> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://${lan}:${t.studio.port}/ws`, { headers: { 'X-API-Key': t.apiKey }, localAddress: lan });
      ws.on('open', () => {
        open.push(ws);
        resolve(101);
      });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => resolve(-1));
    });
  }

  it(`accepts ${MAX_WS_PER_ADDRESS} and refuses the next with 429`, async () => {
    expect(t.studio.config.host).toBe(lan);
    for (let i = 0; i < MAX_WS_PER_ADDRESS; i++) expect(await connect()).toBe(101);
    expect(await connect()).toBe(429);
    open.pop()?.terminate();
    open[0]!.close();
    // Wait until the hub has processed both closes, then a place is free again.
    await expect.poll(() => t.studio.hub.countFrom(lan!)).toBe(MAX_WS_PER_ADDRESS - 2);
    expect(await connect()).toBe(101);
  });
});
