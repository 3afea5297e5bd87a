/**
 * The chat bot endpoints (spec "Chat bot"): status, start, stop.
 */
import type { ChatbotResultBody, ChatbotStatusBody, StartResult, StopResult } from '../../../server/contracts/chatbot.contract.js';
import type { Http } from './http.js';

export type { ChatbotStatusBody, StartResult, StopResult };

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
}
