/** The chat bot's settings in `loadConfig`: the allowed chats list and the long-poll timeout. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config.js';

const noEngine = { probeEngine: async () => false };
const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'studio-cfg-bot-'));

describe('chat bot config', () => {
  it('reads CHATBOT_ALLOWED_CHATS as chat ids (groups are negative, ids exceed 32 bits)', async () => {
    const c = await loadConfig({ STUDIO_DIR: dir(), CHATBOT_ALLOWED_CHATS: ' 42, -1001234567890 ,,7' }, noEngine);
    expect(c.chatbot.allowedChats).toEqual([42, -1001234567890, 7]);
    expect((await loadConfig({ STUDIO_DIR: dir() }, noEngine)).chatbot.allowedChats).toEqual([]);
  });

  it('refuses a list with something that is not a chat id, naming it', async () => {
    await expect(loadConfig({ STUDIO_DIR: dir(), CHATBOT_ALLOWED_CHATS: '42,@channel' }, noEngine)).rejects.toThrow(ConfigError);
    await expect(loadConfig({ STUDIO_DIR: dir(), CHATBOT_ALLOWED_CHATS: '4.5' }, noEngine)).rejects.toThrow(/"4.5"/);
  });

  it('keeps the long-poll timeout between 1 and 50 s (30 by default)', async () => {
    expect((await loadConfig({ STUDIO_DIR: dir() }, noEngine)).chatbot.pollTimeoutS).toBe(30);
    expect((await loadConfig({ STUDIO_DIR: dir(), CHATBOT_POLL_TIMEOUT_S: '0' }, noEngine)).chatbot.pollTimeoutS).toBe(1);
    expect((await loadConfig({ STUDIO_DIR: dir(), CHATBOT_POLL_TIMEOUT_S: '90' }, noEngine)).chatbot.pollTimeoutS).toBe(50);
  });
});
