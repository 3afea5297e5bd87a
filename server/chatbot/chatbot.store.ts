/**
 * What the bot keeps in the `settings` table: the chats allowed through `/key`
 * (`chatbot.allowed_chats`, a JSON array of chat ids) and the next update id to poll for
 * (`chatbot.update_offset.<bot id>`), so a restart neither forgets who may use the bot nor handles
 * an update twice. Update ids are counted per bot, so the offset is kept per bot: another token's
 * offset would make the platform drop the new bot's updates.
 */
import type { SettingsStore } from '../system/settings.store.js';

export const ALLOWED_CHATS_KEY = 'chatbot.allowed_chats';
export const UPDATE_OFFSET_KEY = 'chatbot.update_offset';

/** Allowed chats and the poll offset. */
export class ChatbotStore {
  constructor(
    private readonly settings: SettingsStore,
    /** CHATBOT_ALLOWED_CHATS: when set, the only chats served, and `/key` adds none. */
    private readonly configured: readonly number[],
  ) {}

  /** True when CHATBOT_ALLOWED_CHATS decides alone. */
  get fixedList(): boolean {
    return this.configured.length > 0;
  }

  /** May this chat use the bot? */
  isAllowed(chatId: number): boolean {
    return this.fixedList ? this.configured.includes(chatId) : this.storedChats().includes(chatId);
  }

  /** Allow a chat that sent the API key; false when the configured list decides alone. */
  allow(chatId: number): boolean {
    if (this.fixedList) return false;
    const chats = this.storedChats();
    if (!chats.includes(chatId)) this.settings.set(ALLOWED_CHATS_KEY, JSON.stringify([...chats, chatId]));
    return true;
  }

  /** How many chats may use the bot. */
  allowedCount(): number {
    return this.fixedList ? this.configured.length : this.storedChats().length;
  }

  /** The next update id to ask the platform for (0: whatever is pending) for the bot `botId`. */
  offset(botId: string): number {
    return this.settings.getInt(`${UPDATE_OFFSET_KEY}.${botId}`, 0);
  }

  /** Remember the next update id of the bot `botId`. */
  setOffset(botId: string, value: number): void {
    this.settings.set(`${UPDATE_OFFSET_KEY}.${botId}`, String(value));
  }

  private storedChats(): number[] {
    try {
      const parsed: unknown = JSON.parse(this.settings.get(ALLOWED_CHATS_KEY) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter((id): id is number => Number.isSafeInteger(id)) : [];
    } catch {
      return [];
    }
  }
}
