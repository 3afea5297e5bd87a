/**
 * The chat bot endpoints (spec "Chat bot"): status, start, stop; Studio's `chats` (who may use
 * the bot, and removing a chat admitted with `/key`).
 */
import type { AdmittedChat, ChatbotChatsBody, ChatbotResultBody, ChatbotStatusBody, StartResult, StopResult } from '../../../server/contracts/chatbot.contract.js';
import type { Http } from './http.js';

export type { AdmittedChat, ChatbotChatsBody, ChatbotStatusBody };

export class ChatbotApi {
  constructor(private readonly http: Http) {}

  status(): Promise<ChatbotStatusBody> {
    return this.http.get('/api/admin/chatbot/status');
  }
  start(): Promise<ChatbotResultBody<StartResult>> {
    return this.http.post('/api/admin/chatbot/start');
  }
  stop(): Promise<ChatbotResultBody<StopResult>> {
    return this.http.post('/api/admin/chatbot/stop');
  }
  chats(): Promise<ChatbotChatsBody> {
    return this.http.get('/api/admin/chatbot/chats');
  }
  removeChat(id: number): Promise<{ status: 'removed'; id: number }> {
    return this.http.delete(`/api/admin/chatbot/chats/${encodeURIComponent(String(id))}`);
  }
}
