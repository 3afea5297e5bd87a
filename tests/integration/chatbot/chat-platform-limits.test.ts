/**
 * The chat platform's real limits and errors, through the bot's own client against the strict
 * fake: texts over 4096 characters and captions over 1024 are clipped before they are sent (the
 * platform would refuse them), an edit to the same content ("message is not modified") counts as
 * done, other refusals reach the caller, and the fake answers a method it does not have with 404.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatPlatformClient, ChatPlatformError } from '../../../server/chatbot/chat-platform.client.js';
import { loadGrammy } from '../../../server/chatbot/chatbot-library.js';
import { CAPTION_LIMIT, startFakeChatPlatform, TEXT_LIMIT, type FakeChatPlatform } from '../../helpers/fake-chat-platform.js';
import { TestClock } from '../../helpers/test-clock.js';

const CHAT = 31;
let platform: FakeChatPlatform;
let client: ChatPlatformClient;
let abort: AbortController;

beforeEach(async () => {
  platform = await startFakeChatPlatform();
  abort = new AbortController();
  client = new ChatPlatformClient({ lib: await loadGrammy(), token: platform.token, apiRoot: platform.url, signal: abort.signal, clock: new TestClock() });
});
afterEach(async () => {
  abort.abort();
  await platform.close();
});

const call = (method: string, body: unknown) =>
  fetch(`${platform.url}/bot${platform.token}/${method}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('the strict fake chat platform', () => {
  it('refuses what the platform refuses, with its words, and has no method it does not know', async () => {
    expect(await (await call('sendMessage', { chat_id: CHAT, text: 'x'.repeat(TEXT_LIMIT + 1) })).json()).toEqual({ ok: false, error_code: 400, description: 'Bad Request: message is too long' });
    expect((await call('sendMessage', { chat_id: CHAT, text: 'x'.repeat(TEXT_LIMIT) })).status).toBe(200);
    expect(await (await call('sendMessage', { chat_id: CHAT, text: '' })).json()).toMatchObject({ error_code: 400, description: 'Bad Request: message text is empty' });
    expect(await (await call('sendDocument', { chat_id: CHAT, document: 'x', caption: 'c'.repeat(CAPTION_LIMIT + 1) })).json()).toMatchObject({ description: 'Bad Request: message caption is too long' });
    expect(await (await call('editMessageText', { chat_id: CHAT, message_id: 424242, text: 'a' })).json()).toMatchObject({ description: 'Bad Request: message to edit not found' });
    const unknown = await call('sendTelepathy', { chat_id: CHAT });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
  });
});

describe('the chat platform client within the limits', () => {
  it('clips a text over 4096 characters, on send and on edit', async () => {
    const id = await client.sendMessage(CHAT, 'a'.repeat(5000));
    const sent = String(platform.callsOf('sendMessage')[0]!.params.text);
    expect(sent).toHaveLength(TEXT_LIMIT);
    expect(sent.endsWith('…')).toBe(true);
    await client.editMessageText(CHAT, id, 'b'.repeat(9000));
    expect(String(platform.callsOf('editMessageText')[0]!.params.text)).toHaveLength(TEXT_LIMIT);
  });

  it('clips a caption over 1024 characters', async () => {
    await client.sendFile(CHAT, 'document', new Uint8Array([1, 2, 3]), 'result.bin', 'c'.repeat(3000));
    const caption = String(platform.callsOf('sendDocument')[0]!.params.caption);
    expect(caption).toHaveLength(CAPTION_LIMIT);
    expect(caption.endsWith('…')).toBe(true);
  });

  it('counts "message is not modified" as done, and passes other refusals on', async () => {
    const id = await client.sendMessage(CHAT, 'same');
    await expect(client.editMessageText(CHAT, id, 'same')).resolves.toBeUndefined();
    expect(platform.callsOf('editMessageText')).toHaveLength(1);
    const refused = await client.editMessageText(CHAT, 999_999, 'gone').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ChatPlatformError);
    expect((refused as ChatPlatformError).message).toMatch(/message to edit not found/);
  });
});
