/**
 * With STUDIO_TLS_CERT Studio serves HTTPS with a certificate that does not name 127.0.0.1 and
 * that no public root signed: the bot still reaches Studio's API on loopback.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeChatPlatform, type FakeChatPlatform } from '../../helpers/fake-chat-platform.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let certDir: string;
let platform: FakeChatPlatform;
let t: TestStudio;

beforeAll(async () => {
  certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bot-tls-'));
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=studio.lan',
    '-addext', 'subjectAltName=DNS:studio.lan',
    '-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem'),
  ], { stdio: 'ignore' });
  platform = await startFakeChatPlatform();
  t = await startTestStudio({
    env: {
      STUDIO_TLS_CERT: path.join(certDir, 'cert.pem'),
      STUDIO_TLS_KEY: path.join(certDir, 'key.pem'),
      CHATBOT_BOT_TOKEN: platform.token,
      CHATBOT_API_BASE_URL: platform.url,
      CHATBOT_ALLOWED_CHATS: '99',
    },
  });
});

afterAll(async () => {
  await t?.stop();
  await platform?.close();
  fs.rmSync(certDir, { recursive: true, force: true });
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
