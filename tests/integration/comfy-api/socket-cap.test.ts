/**
 * The engine API's sockets count in Studio's cap of WebSockets per LAN address (issue 44: the rules
 * of the rest of Studio apply). Needs a non-loopback address of this machine; says so if none.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_WS_PER_ADDRESS } from '../../../server/http/app.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const lan = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
if (!lan) console.warn('[comfy socket cap] skipped: this machine has no non-loopback IPv4 address to connect from');

let t: TestStudio;
const open: WebSocket[] = [];

describe.skipIf(!lan)("the engine API's sockets per LAN address", () => {
  beforeAll(async () => {
    t = await startTestStudio({ env: { STUDIO_HOST: lan!, COMFY_API: 'on' } });
  });
  afterAll(async () => {
    for (const ws of open) ws.terminate();
    await t?.stop();
  });

  function connect(path: string): Promise<number> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://${lan}:${t.studio.port}${path}`, { headers: { 'X-API-Key': t.apiKey }, localAddress: lan });
      ws.on('open', () => {
        open.push(ws);
        resolve(101);
      });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => resolve(-1));
    });
  }

  it('counts them with Studio\'s own sockets: the one past the cap is refused with 429 on either path', async () => {
    for (let i = 0; i < MAX_WS_PER_ADDRESS; i++) expect(await connect(`/comfy/ws?clientId=c${i}`)).toBe(101);
    expect(await connect('/comfy/ws?clientId=more')).toBe(429);
    expect(await connect('/ws')).toBe(429);
  });
});
