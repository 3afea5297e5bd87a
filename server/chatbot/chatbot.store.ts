/**
 * What the bot keeps in the `settings` table: the chats admitted through `/key`
 * (`chatbot.allowed_chats`, a JSON array of `{id, title, admitted_at}`; older rows hold bare ids)
 * and the next update id to poll for
 * (`chatbot.update_offset.<bot id>`), so a restart neither forgets who may use the bot nor handles
 * an update twice. Update ids are counted per bot, so the offset is kept per bot: another token's
 * offset would make the platform drop the new bot's updates.
 */
import type { SettingsStore } from '../db/settings.store.js';
import type { AdmittedChat } from '../contracts/chatbot.contract.js';
import { OWNER_ID } from '../contracts/users.contract.js';

export const ALLOWED_CHATS_KEY = 'chatbot.allowed_chats';
const UPDATE_OFFSET_KEY = 'chatbot.update_offset';

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
    return this.fixedList ? this.configured.includes(chatId) : this.storedChats().some((chat) => chat.id === chatId);
  }

  /** Allow a chat that sent the API key; false when the configured list decides alone. */
  allow(chatId: number, title: string | null = null, now = new Date(), ownerId: string = OWNER_ID): boolean {
    if (this.fixedList) return false;
    const chats = this.storedChats();
    if (!chats.some((chat) => chat.id === chatId)) this.write([...chats, { id: chatId, title, admitted_at: now.toISOString(), ...(ownerId !== OWNER_ID ? { owner_id: ownerId } : {}) }]);
    return true;
  }

  /** How many chats may use the bot. */
  allowedCount(): number {
    return this.fixedList ? this.configured.length : this.storedChats().length;
  }

  /** The chats admitted with `/key` (kept, but not served, while CHATBOT_ALLOWED_CHATS is set). */
  admitted(): AdmittedChat[] {
    return this.storedChats();
  }

  /** The chat ids of CHATBOT_ALLOWED_CHATS. */
  configuredChats(): readonly number[] {
    return this.configured;
  }

  /** Take one admitted chat off the list; false when it was not on it. */
  remove(chatId: number): boolean {
    const chats = this.storedChats();
    const kept = chats.filter((chat) => chat.id !== chatId);
    if (kept.length === chats.length) return false;
    this.write(kept);
    return true;
  }

  /** Forget every chat admitted with `/key` (the API key changed); returns how many there were. */
  clearAdmitted(): number {
    const count = this.storedChats().length;
    if (count > 0) this.write([]);
    return count;
  }

  /** The next update id to ask the platform for (0: whatever is pending) for the bot `botId`. */
  offset(botId: string): number {
    return this.settings.getInt(`${UPDATE_OFFSET_KEY}.${botId}`, 0);
  }

  /** Remember the next update id of the bot `botId`. */
  setOffset(botId: string, value: number): void {
    this.settings.set(`${UPDATE_OFFSET_KEY}.${botId}`, String(value));
  }

  private write(chats: AdmittedChat[]): void {
    this.settings.set(ALLOWED_CHATS_KEY, JSON.stringify(chats));
  }

  private storedChats(): AdmittedChat[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.settings.get(ALLOWED_CHATS_KEY) ?? '[]');
    } catch {
      return [];
    }
    if (!Array.isArray(parsed)) return [];
    const chats: AdmittedChat[] = [];
    for (const item of parsed as unknown[]) {
      // Rows written before titles were kept hold bare ids.
      if (Number.isSafeInteger(item)) chats.push({ id: item as number, title: null, admitted_at: null });
      else if (item && typeof item === 'object' && Number.isSafeInteger((item as AdmittedChat).id)) {
        const { id, title, admitted_at, owner_id } = item as AdmittedChat;
        chats.push({ id, title: typeof title === 'string' ? title : null, admitted_at: typeof admitted_at === 'string' ? admitted_at : null, ...(typeof owner_id === 'string' && owner_id !== OWNER_ID ? { owner_id } : {}) });
      }
    }
    return chats;
  }
}
