import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let t: TestStudio;
beforeAll(async () => {
  t = await startTestStudio();
});
afterAll(async () => {
  await t.stop();
});

describe('the maintenance gate', () => {
  it('answers every API route with 503 and the spec detail, and pages with a self-reloading 503 page', async () => {
    const cookie = await t.login();
    t.studio.maintenance.enable();
    try {
      for (const p of ['/api/admin/events', '/api/health', '/api/auth/login', '/api/unknown']) {
        const res = await t.api(p);
        expect(res.status, p).toBe(503);
        expect(await res.json()).toEqual({ detail: 'System is updating, please wait...' });
      }
      const page = await fetch(`${t.url}/home`, { headers: { Cookie: cookie } });
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      expect(html).toContain('<meta http-equiv="refresh" content="3">');
      expect(html).toContain('location.reload()');
      // The WebSocket handshake is refused too.
      const status = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws`, { headers: { 'X-API-Key': t.apiKey } });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
        ws.on('error', () => {});
      });
      expect(status).toBe(503);
    } finally {
      t.studio.maintenance.disable();
    }
    expect((await t.api('/api/admin/events')).status).toBe(200);
    expect((await fetch(`${t.url}/home`, { headers: { Cookie: cookie } })).status).toBe(200);
  });
});
