/**
 * The chat bot's state table (spec "Chat bot"): start/stop results, status fields, auto-start on
 * boot, stop ending a long poll in flight, and the "bot library missing" case.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeChatPlatform, type FakeChatPlatform } from '../../helpers/fake-chat-platform.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

let studio: TestStudio | undefined;
let platform: FakeChatPlatform | undefined;

afterEach(async () => {
  await studio?.stop();
  await platform?.close();
  studio = undefined;
  platform = undefined;
});

const post = async (s: TestStudio, path: string) => {
  const res = await s.api(path, { method: 'POST' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const status = async (s: TestStudio) => (await (await s.api('/api/admin/chatbot/status')).json()) as Record<string, unknown>;

describe('chat bot lifecycle', () => {
  it('without a token: start says so and nothing polls; stop says not running', async () => {
    studio = await startTestStudio();
    expect(await status(studio)).toMatchObject({ running: false, name: '', started_at: null });
    expect(await post(studio, '/api/admin/chatbot/start')).toEqual({ status: 200, body: { result: 'no token configured' } });
    expect((await status(studio)).running).toBe(false);
    expect(await post(studio, '/api/admin/chatbot/stop')).toEqual({ status: 200, body: { result: 'not running' } });
  });

  it('with a token: auto-starts on boot, then follows the state table', async () => {
    platform = await startFakeChatPlatform();
    studio = await startTestStudio({
      env: { CHATBOT_BOT_TOKEN: platform.token, CHATBOT_BOT_NAME: 'Studio Bot', CHATBOT_API_BASE_URL: platform.url },
    });
    const booted = await status(studio);
    expect(booted).toMatchObject({ running: true, name: 'Studio Bot', last_error: null, retry_in_s: null, failing_polls: 0, allowed_chats: 0 });
    // Europe/Rome time with its offset (+01:00 in winter, +02:00 in summer).
    expect(booted.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0[12]:00$/);
    await platform.waitFor(() => platform!.openPolls() === 1);
    expect(platform.callsOf('getUpdates')[0]!.token).toBe(platform.token);
    const system = (await (await studio.api('/api/admin/system/status')).json()) as { telegram_bot: unknown };
    expect(system.telegram_bot).toEqual({ running: true, name: 'Studio Bot' });

    expect(await post(studio, '/api/admin/chatbot/start')).toEqual({ status: 200, body: { result: 'already running' } });
    // The long poll in flight (30 s) is cut by stop: it returns well before the poll would end.
    expect(await post(studio, '/api/admin/chatbot/stop')).toEqual({ status: 200, body: { result: 'stopped' } });
    await platform.waitFor(() => platform!.openPolls() === 0);
    expect(await status(studio)).toMatchObject({ running: false, started_at: null });
    expect(await post(studio, '/api/admin/chatbot/stop')).toEqual({ status: 200, body: { result: 'not running' } });
    const polls = platform.callsOf('getUpdates').length;

    expect(await post(studio, '/api/admin/chatbot/start')).toEqual({ status: 200, body: { result: 'started' } });
    await platform.waitFor(() => platform!.callsOf('getUpdates').length > polls);
    expect((await status(studio)).running).toBe(true);

    const events = (await (await studio.api('/api/admin/events')).json()) as Array<{ type: string; message: string }> | { events: Array<{ type: string; message: string }> };
    const list = Array.isArray(events) ? events : events.events;
    expect(list.filter((e) => e.type === 'chatbot.state').map((e) => e.message)).toEqual(
      expect.arrayContaining(['Chat bot started: Studio Bot', 'Chat bot stopped']),
    );
  });

  it('a token the platform rejects stops the bot by itself, with the reason in status', async () => {
    platform = await startFakeChatPlatform();
    studio = await startTestStudio({ env: { CHATBOT_BOT_TOKEN: 'wrong:token', CHATBOT_API_BASE_URL: platform.url } });
    await platform.waitFor((calls) => calls.some((c) => c.method === 'getUpdates'));
    await expect.poll(async () => (await status(studio!)).running).toBe(false);
    const after = await status(studio);
    expect(after.last_error).toMatch(/rejected the bot token \(401/);
    expect(await post(studio, '/api/admin/chatbot/stop')).toEqual({ status: 200, body: { result: 'not running' } });
  });

  it('when the bot library is missing: status carries the error, start answers 500', async () => {
    studio = await startTestStudio({
      env: { CHATBOT_BOT_TOKEN: 'any:token' },
      chatbot: { loadLibrary: () => Promise.reject(new Error("Cannot find package 'grammy'")) },
    });
    const res = await studio.api('/api/admin/chatbot/status');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ running: false, started_at: null });
    expect(body.error).toMatch(/library \(grammy\) is not available: Cannot find package 'grammy'/);
    const start = await studio.api('/api/admin/chatbot/start', { method: 'POST' });
    expect(start.status).toBe(500);
    expect(((await start.json()) as { detail: string }).detail).toMatch(/not available/);
    expect(await post(studio, '/api/admin/chatbot/stop')).toEqual({ status: 200, body: { result: 'not running' } });
  });

  it('a token set through settings does not start a stopped bot; a running one restarts with the new token or name (and it survives a restart)', async () => {
    platform = await startFakeChatPlatform('777:first-token');
    studio = await startTestStudio({ env: { CHATBOT_API_BASE_URL: platform.url } });
    const put = (key: string, value: string) =>
      studio!.api('/api/admin/settings/env', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key, value }) });
    expect((await status(studio)).running).toBe(false);

    // Spec: the bot starts only on `start` and at boot. The token alone leaves it stopped...
    expect((await put('CHATBOT_BOT_TOKEN', '777:first-token')).status).toBe(200);
    expect((await status(studio)).running).toBe(false);
    expect(platform.callsOf('getUpdates')).toHaveLength(0);
    // ...so the next Start starts it (not "already running").
    expect(await post(studio, '/api/admin/chatbot/start')).toEqual({ status: 200, body: { result: 'started' } });
    await platform.waitFor((calls) => calls.some((c) => c.method === 'getUpdates' && c.token === '777:first-token'));
    expect((await status(studio)).running).toBe(true);

    expect((await put('CHATBOT_BOT_NAME', 'Renamed')).status).toBe(200);
    expect(await status(studio)).toMatchObject({ running: true, name: 'Renamed' });

    expect((await put('CHATBOT_BOT_TOKEN', '888:second-token')).status).toBe(200);
    await platform.waitFor((calls) => calls.some((c) => c.method === 'getUpdates' && c.token === '888:second-token'));
    // The fake knows only the first token: the second is rejected and the bot stops by itself.
    await expect.poll(async () => (await status(studio!)).running).toBe(false);

    // The stored token is used at the next boot (auto-start from stored settings).
    const dir = studio.dir;
    await studio.studio.stop();
    const polls = platform.callsOf('getUpdates').length;
    const again = await startTestStudio({ dir, env: { CHATBOT_API_BASE_URL: platform.url } });
    try {
      await platform.waitFor(() => platform!.callsOf('getUpdates').length > polls);
      expect(platform.callsOf('getUpdates').at(-1)!.token).toBe('888:second-token');
    } finally {
      await again.stop();
    }
  });
});
