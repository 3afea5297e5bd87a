/**
 * What the bot keeps in the `settings` table: the chats admitted through `/key`
 * (`chatbot.allowed_chats`, a JSON array of `{id, title, admitted_at}`, with `owner_id` and `key_id`
 * for a chat a person's key bound to them; older rows hold bare ids)
 * and the next update id to poll for
 * (`chatbot.update_offset.<bot id>`), so a restart neither forgets who may use the bot nor handles
 * an update twice. Update ids are counted per bot, so the offset is kept per bot: another token's
 * offset would make the platform drop the new bot's updates.
 */
import type { SettingsStore } from '../db/settings.store.js';
import type { AdmittedChat } from '../contracts/chatbot.contract.js';
import type { Binding } from '../http/authenticator.js';

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

  /**
   * Allow a chat that sent a key: API_KEY (no binding: the chat acts as the owner) or a personal key
   * (bound to its person). A chat admitted already takes the new binding. False when the configured
   * list decides alone.
   */
  allow(chatId: number, title: string | null = null, now = new Date(), binding: Binding | null = null): boolean {
    if (this.fixedList) return false;
    const chats = this.storedChats().filter((chat) => chat.id !== chatId);
    this.write([...chats, { id: chatId, title, admitted_at: now.toISOString(), ...(binding ? { owner_id: binding.userId, key_id: binding.keyId } : {}) }]);
    return true;
  }

  /** The person a served chat acts as; null for the owner (API_KEY, or CHATBOT_ALLOWED_CHATS). */
  binding(chatId: number): Binding | null {
    if (this.fixedList) return null;
    const chat = this.storedChats().find((c) => c.id === chatId);
    return chat?.owner_id !== undefined && chat.key_id !== undefined ? { userId: chat.owner_id, keyId: chat.key_id } : null;
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

  /**
   * Forget the chats admitted with API_KEY (it changed); returns how many there were. Chats bound
   * by a personal key stay: that key still stands, and revoking it is what ends them.
   */
  clearAdmitted(): number {
    const chats = this.storedChats();
    const kept = chats.filter((chat) => chat.key_id !== undefined);
    if (kept.length < chats.length) this.write(kept);
    return chats.length - kept.length;
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
        const { id, title, admitted_at, owner_id, key_id } = item as AdmittedChat;
        chats.push({
          id,
          title: typeof title === 'string' ? title : null,
          admitted_at: typeof admitted_at === 'string' ? admitted_at : null,
          ...(typeof owner_id === 'string' ? { owner_id } : {}),
          ...(typeof key_id === 'string' ? { key_id } : {}),
        });
      }
    }
    return chats;
  }
}
