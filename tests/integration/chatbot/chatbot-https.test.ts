/**
 * With STUDIO_TLS_CERT Studio serves HTTPS with a certificate that does not name 127.0.0.1 and
 * that no public root signed: the bot still reaches Studio's API on loopback.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeChatPlatform, type FakeChatPlatform } from '../../helpers/fake-chat-platform.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { makeTestCert, type TestCert } from '../../helpers/tls-cert.js';

let cert: TestCert;
let platform: FakeChatPlatform;
let t: TestStudio;

beforeAll(async () => {
  cert = makeTestCert({ namesLoopback: false });
  platform = await startFakeChatPlatform();
  t = await startTestStudio({
    env: {
      ...cert.env,
      CHATBOT_BOT_TOKEN: platform.token,
      CHATBOT_API_BASE_URL: platform.url,
      CHATBOT_ALLOWED_CHATS: '99',
    },
  });
});

afterAll(async () => {
  await t?.stop();
  await platform?.close();
  cert?.remove();
});

it('lists the presets over HTTPS', async () => {
  expect(t.url).toMatch(/^https:/);
  const created = await new Promise<number>((resolve, reject) => {
    // The test's own client skips verification; the bot under test does not.
    const body = JSON.stringify({ id: 'fox', name: 'Fox', workflow: { workflow_id: 'image-filter', params: {} } });
    void import('node:https').then(({ request }) => {
      const req = request(`${t.url}/api/admin/presets`, { method: 'POST', rejectUnauthorized: false, headers: { 'X-API-Key': t.apiKey, 'Content-Type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
  });
  expect(created).toBe(200);
  platform.sendText(99, 'hi');
  await platform.waitFor(() => platform.callsOf('sendMessage').length > 0);
  const reply = platform.callsOf('sendMessage')[0]!;
  expect(reply.params.text).toBe('Which preset shall I run?');
  expect(JSON.stringify(reply.params.reply_markup)).toContain('Fox');
});
