/**
 * Polling through trouble: a 429 waits exactly `retry_after`, network and 5xx errors back off
 * (growing, capped, visible in status) and recover, sends honour 429 too, a stop cuts a backoff
 * short, and CHATBOT_ALLOWED_CHATS decides alone who may use the bot. The bot's waits go through
 * a TestClock: the tests check the delay asked for and hold each wait while they look at status,
 * never a measured gap between calls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeChatPlatform, type FakeChatPlatform } from '../../helpers/fake-chat-platform.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { TestClock } from '../../helpers/test-clock.js';

const CHAT = 5150;
let studio: TestStudio | undefined;
let platform: FakeChatPlatform | undefined;

afterEach(async () => {
  await studio?.stop();
  await platform?.close();
  studio = undefined;
  platform = undefined;
});

async function boot(fake: FakeChatPlatform, env: Record<string, string> = {}, clock?: TestClock): Promise<TestStudio> {
  return startTestStudio({
    env: { CHATBOT_BOT_TOKEN: fake.token, CHATBOT_API_BASE_URL: fake.url, CHATBOT_ALLOWED_CHATS: String(CHAT), ...env },
    chatbot: { backoff: { initialMs: 400, maxMs: 800 }, clock },
  });
}

/** Resolves when the clock holds exactly these waits. */
const heldAre = (clock: TestClock, delays: number[]) => expect.poll(() => clock.heldDelays()).toEqual(delays);

const status = async (s: TestStudio) => (await (await s.api('/api/admin/chatbot/status')).json()) as Record<string, unknown>;
const repliedTo = (fake: FakeChatPlatform, chatId: number) => fake.callsOf('sendMessage').filter((c) => Number(c.params.chat_id) === chatId);

describe('chat bot polling', () => {
  it('a 429 on getUpdates waits exactly retry_after, shows it in status, then serves chats', async () => {
    platform = await startFakeChatPlatform();
    platform.failNext('getUpdates', { status: 429, description: 'Too Many Requests: retry after 2', retry_after: 2 });
    const clock = new TestClock(1);
    studio = await boot(platform, {}, clock);
    await heldAre(clock, [2000]);
    expect(platform.callsOf('getUpdates')).toHaveLength(1);
    expect(await status(studio)).toMatchObject({ running: true, last_error: expect.stringMatching(/^rate limited by the chat platform: Too Many Requests/) as unknown, retry_in_s: 2 });

    clock.release();
    await platform.waitFor(() => platform!.callsOf('getUpdates').length >= 2);
    expect(clock.sleeps).toEqual([2000]);
    platform.sendText(CHAT, 'hello');
    await platform.waitFor(() => repliedTo(platform!, CHAT).length > 0);
    expect(String(repliedTo(platform, CHAT)[0]!.params.text)).toMatch(/no presets yet/);
    expect(await status(studio)).toMatchObject({ running: true, last_error: null, retry_in_s: null });
  });

  it('network errors and 5xx back off, growing to the cap, then recover', async () => {
    platform = await startFakeChatPlatform();
    platform.failNext('getUpdates', 'drop', 'drop', { status: 502, description: 'Bad Gateway' }, 'drop');
    const clock = new TestClock(1);
    studio = await boot(platform, {}, clock);
    // 400 ms, 800 ms, then capped at 800 ms; each failure in status while its wait is held.
    for (const [i, delay, error] of [
      [1, 400, /^the chat platform could not be reached/],
      [2, 800, /^the chat platform could not be reached/],
      [3, 800, /^the chat platform answered 502 Bad Gateway/],
      [4, 800, /^the chat platform could not be reached/],
    ] as const) {
      await heldAre(clock, [delay]);
      expect(platform.callsOf('getUpdates')).toHaveLength(i);
      // Running, yet failing: the count of failed polls in a row lets the page say so.
      expect(await status(studio)).toMatchObject({ running: true, failing_polls: i, last_error: expect.stringMatching(error) as unknown, retry_in_s: 1 });
      clock.release();
    }
    await platform.waitFor(() => platform!.callsOf('getUpdates').length >= 5);
    expect(clock.sleeps).toEqual([400, 800, 800, 800]);
    platform.sendText(CHAT, 'hello');
    await platform.waitFor(() => repliedTo(platform!, CHAT).length > 0);
    expect(await status(studio)).toMatchObject({ running: true, failing_polls: 0, last_error: null });
  });

  it('a failed poll never shows the bot token whole: not in status, the page it feeds, nor an event', async () => {
    platform = await startFakeChatPlatform();
    platform.failNext('getUpdates', 'drop');
    const clock = new TestClock(1);
    studio = await boot(platform, {}, clock);
    await heldAre(clock, [400]);
    const body = await (await studio.api('/api/admin/chatbot/status')).text();
    // The platform's URL is in the message (it says where the call went), its token masked.
    expect(body).toMatch(/could not be reached/);
    expect(body).toContain(`${platform.token.slice(0, 4)}***${platform.token.slice(-4)}`);
    expect(body).not.toContain(platform.token);
    expect(await (await studio.api('/api/admin/events?limit=1000')).text()).not.toContain(platform.token);
    clock.release();
  });

  it('a stop during a backoff ends polling at once', async () => {
    platform = await startFakeChatPlatform();
    platform.failNext('getUpdates', ...Array.from({ length: 50 }, () => 'drop' as const));
    // Every wait is held: only the stop can end this one.
    const clock = new TestClock(1);
    studio = await startTestStudio({
      env: { CHATBOT_BOT_TOKEN: platform.token, CHATBOT_API_BASE_URL: platform.url },
      chatbot: { backoff: { initialMs: 60_000, maxMs: 60_000 }, clock },
    });
    await heldAre(clock, [60_000]);
    expect(await status(studio)).toMatchObject({ running: true, retry_in_s: 60 });
    const res = await studio.api('/api/admin/chatbot/stop', { method: 'POST' });
    expect(await res.json()).toEqual({ result: 'stopped' });
    expect(await status(studio)).toMatchObject({ running: false, retry_in_s: null });
    expect(clock.heldDelays()).toEqual([]);
    expect(platform.callsOf('getUpdates')).toHaveLength(1);
  });

  it('a 429 on a send is waited out and the message still arrives', async () => {
    platform = await startFakeChatPlatform();
    const clock = new TestClock(1);
    studio = await boot(platform, {}, clock);
    platform.failNext('sendMessage', { status: 429, description: 'Too Many Requests: retry after 1', retry_after: 1 });
    platform.sendText(CHAT, 'hello');
    // The refused send is in, and the client waits exactly retry_after before sending it again.
    await heldAre(clock, [1000]);
    expect(repliedTo(platform, CHAT)).toHaveLength(1);
    clock.release();
    await platform.waitFor(() => repliedTo(platform!, CHAT).length === 2);
    expect(clock.sleeps).toEqual([1000]);
    expect(repliedTo(platform, CHAT)[0]!.params.text).toBe(repliedTo(platform, CHAT)[1]!.params.text);
  });

  it('CHATBOT_ALLOWED_CHATS decides alone: other chats are refused, even with the key', async () => {
    platform = await startFakeChatPlatform();
    studio = await boot(platform);
    platform.sendText(6, 'hello');
    platform.sendText(6, `/key ${studio.apiKey}`);
    await platform.waitFor(() => repliedTo(platform!, 6).length === 2);
    for (const call of repliedTo(platform, 6)) expect(call.params.text).toBe('Sorry, this bot is private and this chat is not on its list.');
    expect(await status(studio)).toMatchObject({ allowed_chats: 1 });
    expect(studio.studio.db.prepare('SELECT value FROM settings WHERE key = ?').get('chatbot.allowed_chats')).toBeUndefined();
  });

  it('keeps the poll offset per bot: a restart does not handle an update twice', async () => {
    platform = await startFakeChatPlatform();
    studio = await boot(platform);
    const id = platform.sendText(CHAT, 'hello');
    await platform.waitFor(() => repliedTo(platform!, CHAT).length === 1);
    expect(await (await studio.api('/api/admin/chatbot/stop', { method: 'POST' })).json()).toEqual({ result: 'stopped' });
    const polls = platform.callsOf('getUpdates').length;
    expect(await (await studio.api('/api/admin/chatbot/start', { method: 'POST' })).json()).toEqual({ result: 'started' });
    await platform.waitFor(() => platform!.callsOf('getUpdates').length > polls);
    expect(platform.callsOf('getUpdates')[polls]!.params.offset).toBe(id + 1);
    expect(repliedTo(platform, CHAT)).toHaveLength(1);
    const botId = platform.token.split(':')[0]!;
    const row = studio.studio.db.prepare('SELECT value FROM settings WHERE key = ?').get(`chatbot.update_offset.${botId}`) as { value: string };
    expect(Number(row.value)).toBe(id + 1);
  });

  it('reaches Studio when it listens on one address only (not loopback 127.0.0.1)', async () => {
    platform = await startFakeChatPlatform();
    studio = await boot(platform, { STUDIO_HOST: '127.0.0.2' });
    platform.sendText(CHAT, 'hello');
    await platform.waitFor(() => repliedTo(platform!, CHAT).length === 1);
    expect(String(repliedTo(platform, CHAT)[0]!.params.text)).toMatch(/no presets yet/);
  });
});
