/**
 * Chats admitted with `/key` are sessions of the old key: changing `API_KEY` must end them (the
 * attack: a chat admitted before the owner rotated a leaked key keeps running jobs on the GPU).
 * The owner sees who is admitted and can remove one; CHATBOT_ALLOWED_CHATS is not touched.
 *
 * Order matters (one Studio and one fake platform for the first describe): the API_KEY test uses
 * a chat the listing test admitted (ALICE) and left in place. The last describe has its own Studio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeChatPlatform, type FakeChatPlatform, type RecordedCall } from '../../helpers/fake-chat-platform.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const ALICE = 4101;
const FAMILY = -100_555;
let platform: FakeChatPlatform;
let t: TestStudio;
/** The key in force (the second test changes it). */
let key = '';
const api = (pathname: string, init: RequestInit = {}) => t.api(pathname, { ...init, headers: { 'X-API-Key': key, ...(init.headers as Record<string, string>) } });

beforeAll(async () => {
  platform = await startFakeChatPlatform();
  t = await startTestStudio({ env: { CHATBOT_BOT_TOKEN: platform.token, CHATBOT_API_BASE_URL: platform.url } });
  key = t.apiKey;
  const preset = { id: 'sunset', name: 'Sunset', workflow: { workflow_id: 'image-filter', params: {} } };
  expect((await t.api('/api/admin/presets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(preset) })).status).toBe(200);
}, 30_000);
afterAll(async () => {
  await t?.stop();
  await platform?.close();
});

const to = (chatId: number) => (c: RecordedCall) => Number(c.params.chat_id) === chatId;
const messagesTo = (chatId: number) => platform.callsOf('sendMessage').filter(to(chatId));
const waitForMessage = (chatId: number, pattern: RegExp, after = 0) =>
  platform.waitFor(() => messagesTo(chatId).slice(after).some((c) => pattern.test(String(c.params.text))));
const groupText = (text: string) =>
  platform.push({ message: { message_id: 9000 + platform.calls.length, date: 0, chat: { id: FAMILY, type: 'group', title: 'Family' }, from: { id: 1, is_bot: false, first_name: 'Bo' }, text } });
const chats = async () => (await (await api('/api/admin/chatbot/chats')).json()) as { fixed_list: boolean; configured: number[]; admitted: Array<{ id: number; title: string | null; admitted_at: string | null }> };
const setKey = (value: string) =>
  api('/api/admin/settings/env', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: 'API_KEY', value }) });

describe('chats admitted with /key', () => {
  it('are listed with their titles and can be removed one by one', async () => {
    platform.sendText(ALICE, `/key ${key}`);
    await waitForMessage(ALICE, /may now use the bot/);
    groupText(`/key ${key}`);
    await waitForMessage(FAMILY, /may now use the bot/);
    const listed = await chats();
    expect(listed).toMatchObject({ fixed_list: false, configured: [] });
    expect(listed.admitted.map((c) => [c.id, c.title])).toEqual([
      [ALICE, 'Tester'],
      [FAMILY, 'Family'],
    ]);
    expect(listed.admitted[0]!.admitted_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const removed = await api(`/api/admin/chatbot/chats/${FAMILY}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await chats()).admitted.map((c) => c.id)).toEqual([ALICE]);
    const before = messagesTo(FAMILY).length;
    groupText('hi');
    await waitForMessage(FAMILY, /this bot is private/, before);

    expect((await api(`/api/admin/chatbot/chats/${FAMILY}`, { method: 'DELETE' })).status).toBe(404);
    const bad = await api('/api/admin/chatbot/chats/not-a-number', { method: 'DELETE' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ detail: expect.any(String) as string });
  });

  it('stop working when API_KEY changes: the chat must send the new key', async () => {
    const before = messagesTo(ALICE).length;
    platform.sendText(ALICE, 'hi');
    await waitForMessage(ALICE, /Which preset/, before);

    const newKey = 'a-brand-new-key-0123456789';
    expect((await setKey(newKey)).status).toBe(200);
    key = newKey;
    expect((await chats()).admitted).toEqual([]);

    const afterChange = messagesTo(ALICE).length;
    platform.sendText(ALICE, 'hi');
    await waitForMessage(ALICE, /this bot is private/, afterChange);
    expect(messagesTo(ALICE).slice(afterChange).some((c) => /Which preset/.test(String(c.params.text)))).toBe(false);

    const events = (await (await api('/api/admin/events?types=chatbot.chats.cleared')).json()) as Array<{ data: { count: number } }>;
    expect(events.map((e) => e.data.count)).toEqual([1]);

    const again = messagesTo(ALICE).length;
    platform.sendText(ALICE, `/key ${newKey}`);
    await waitForMessage(ALICE, /may now use the bot/, again);
  });
});

describe('CHATBOT_ALLOWED_CHATS', () => {
  it('stays in force after the key changes, and its chats cannot be removed at runtime', async () => {
    const other = await startFakeChatPlatform('999:fixed-list');
    const fixed = await startTestStudio({ env: { CHATBOT_BOT_TOKEN: other.token, CHATBOT_API_BASE_URL: other.url, CHATBOT_ALLOWED_CHATS: '31337' } });
    try {
      const put = await fixed.api('/api/admin/settings/env', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ key: 'API_KEY', value: 'another-long-key-0123456789' }) });
      expect(put.status).toBe(200);
      const headers = { 'X-API-Key': 'another-long-key-0123456789' };
      expect(await (await fixed.api('/api/admin/chatbot/chats', { headers })).json()).toEqual({ fixed_list: true, configured: [31337], admitted: [] });
      expect((await fixed.api('/api/admin/chatbot/chats/31337', { method: 'DELETE', headers })).status).toBe(409);
      other.sendText(31337, 'hi');
      await other.waitFor(() => other.callsOf('sendMessage').some((c) => /Which preset|no presets/i.test(String(c.params.text))));
    } finally {
      await fixed.stop();
      await other.close();
    }
  });
});
