/**
 * Who may use the bot. It spends the box's GPU, so only chats listed in CHATBOT_ALLOWED_CHATS,
 * or (when that is unset) chats that sent `/key <API_KEY>` or `/key <personal key>` once, are
 * served. Everyone else gets a polite refusal and nothing runs. The message carrying the key is
 * deleted from the chat, and wrong keys are limited per chat so no key can be guessed through the bot.
 *
 * A personal key binds the chat to its person (issue 43): the bot then calls Studio as them (their
 * role, the key's scope, their allow-lists and quotas; `chatbot.service.ts`), and a new `/key`
 * binds it afresh (after that key was revoked, say). API_KEY admits a chat that acts as the owner.
 */
import crypto from 'node:crypto';
import type { Message } from 'grammy/types';
import type { EventBus } from '../events/event-bus.js';
import { byWhom } from '../http/audit.js';
import { reachOf, type Actor } from '../http/actor.js';
import type { ChatPlatformClient } from './chat-platform.client.js';
import type { ChatbotStore } from './chatbot.store.js';

/** Wrong keys a chat may send before `/key` is ignored for it (until Studio restarts). */
const MAX_WRONG_KEYS = 5;
/**
 * Wrong keys from all chats together before `/key` is ignored everywhere (until Studio restarts):
 * many throwaway accounts must not get many guesses. Kept apart from the HTTP key limiter so a
 * stranger on the chat platform cannot pause key checks for Studio's own users.
 */
const MAX_WRONG_KEYS_TOTAL = 20;

export interface ChatDoorDeps {
  platform: ChatPlatformClient;
  store: ChatbotStore;
  apiKey: () => string;
  /** Who a personal key belongs to (null: unknown, revoked, or its person disabled); not the HTTP limiter's check. */
  personalKey: (candidate: string) => Actor | null;
  events: EventBus;
  /** Wrong-key counts per chat; owned by the service so a bot restart does not reset them. */
  wrongKeys: Map<number, number>;
}

/** Admits allowed chats and handles `/key`. */
export class ChatDoor {
  constructor(private readonly deps: ChatDoorDeps) {}

  /** May this chat use the bot? */
  allowed(chatId: number): boolean {
    return this.deps.store.isAllowed(chatId);
  }

  /** True when the message should go on to the conversation; otherwise the chat has been answered. */
  async admit(message: Message): Promise<boolean> {
    const chatId = message.chat.id;
    const key = /^\/key(?:@\w+)?\s+(\S+)\s*$/i.exec(message.text?.trim() ?? '')?.[1];
    if (key !== undefined) {
      await this.deps.platform.deleteMessage(chatId, message.message_id);
      await this.tryKey(message, key);
      return false;
    }
    if (this.allowed(chatId)) return true;
    await this.deps.platform.sendMessage(
      chatId,
      this.deps.store.fixedList
        ? 'Sorry, this bot is private and this chat is not on its list.'
        : 'Sorry, this bot is private. Send /key followed by your Studio API key or a personal key (made on the My keys page) to allow this chat.',
    );
    return false;
  }

  private async tryKey(message: Message, key: string): Promise<void> {
    const { platform, store } = this.deps;
    const chatId = message.chat.id;
    const wrong = this.deps.wrongKeys.get(chatId) ?? 0;
    const total = [...this.deps.wrongKeys.values()].reduce((a, b) => a + b, 0);
    if (store.fixedList || wrong >= MAX_WRONG_KEYS || total >= MAX_WRONG_KEYS_TOTAL) {
      await platform.sendMessage(chatId, 'Sorry, this bot is private and this chat is not on its list.');
      return;
    }
    const owner = sameSecret(key, this.deps.apiKey());
    const person = owner ? null : this.deps.personalKey(key);
    if (!owner && !person) {
      this.deps.wrongKeys.set(chatId, wrong + 1);
      if (total + 1 === MAX_WRONG_KEYS_TOTAL) {
        this.deps.events.emit('chatbot.key.locked', 'warning', `${MAX_WRONG_KEYS_TOTAL} wrong keys were sent to the chat bot; /key is ignored until Studio restarts`, {});
      }
      await platform.sendMessage(chatId, 'That is not the right key. Nothing was changed.');
      return;
    }
    const binding = person?.keyId ? { userId: person.userId, keyId: person.keyId } : null;
    const current = store.isAllowed(chatId) ? store.binding(chatId) : undefined;
    if (current !== undefined && current?.keyId === binding?.keyId) {
      await platform.sendMessage(chatId, 'This chat may already use the bot. Send any message to see the presets.');
      return;
    }
    store.allow(chatId, chatTitle(message.chat), new Date(), binding);
    if (!person) {
      this.deps.events.emit('chatbot.chat.allowed', 'warning', `Chat ${chatId} may now use the chat bot (it sent the API key)`, { chat_id: chatId });
      await platform.sendMessage(chatId, 'Welcome! This chat may now use the bot. Send any message to see the presets.');
      return;
    }
    this.deps.events.emit('chatbot.chat.allowed', 'warning', `Chat ${chatId} may now use the chat bot as ${person.name} (it sent their personal key)`, { chat_id: chatId, ...byWhom(person), key_id: person.keyId });
    const looks = reachOf(person) === 'read' ? ' This key may only look: it runs nothing.' : '';
    await platform.sendMessage(chatId, `Welcome, ${person.name}! This chat may now use the bot as you: your presets, permissions and quotas.${looks} Send any message to see the presets.`);
  }
}

/** What the owner will recognise a chat by: a group's title, or the user's name or @handle. */
function chatTitle(chat: Message['chat']): string | null {
  if ('title' in chat && chat.title) return chat.title;
  const name = ['first_name' in chat ? chat.first_name : undefined, 'last_name' in chat ? chat.last_name : undefined].filter(Boolean).join(' ');
  if (name) return name;
  return 'username' in chat && chat.username ? `@${chat.username}` : null;
}

function sameSecret(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb);
}
