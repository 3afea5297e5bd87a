/**
 * `/api/admin/chatbot/`: status, start, stop (spec "Chat bot"). Results are sent as
 * `{result: "<text>"}` (the spec leaves the field name open; see the README). Studio adds
 * `chats`: who may use the bot, and removing a chat admitted with `/key`.
 */
import express from 'express';
import { DomainError } from '../domain-error.js';
import type { ChatbotChatsBody, ChatbotResultBody, ChatbotStatusBody, StartResult, StopResult } from '../contracts/chatbot.contract.js';
import type { ChatbotService } from './chatbot.service.js';
import { actorOf } from '../http/actor.js';

/** Chat bot routes. */
export function chatbotRoutes(bot: ChatbotService): express.Router {
  const router = express.Router();

  router.get('/api/admin/chatbot/status', async (_req, res) => {
    const error = await bot.libraryError();
    // Spec: "when the bot library is missing, an error message is returned instead" (still a 200).
    const body: ChatbotStatusBody = error ? { ...bot.status(), error } : bot.details();
    res.json(body);
  });

  router.post('/api/admin/chatbot/start', async (_req, res) => {
    const body: ChatbotResultBody<StartResult> = { result: await bot.start() };
    res.json(body);
  });

  router.post('/api/admin/chatbot/stop', async (_req, res) => {
    const body: ChatbotResultBody<StopResult> = { result: await bot.stop() };
    res.json(body);
  });

  router.get('/api/admin/chatbot/chats', (_req, res) => {
    const body: ChatbotChatsBody = bot.chats(actorOf(res));
    res.json(body);
  });

  router.delete('/api/admin/chatbot/chats/:id', (req, res) => {
    // Chat ids are integers; groups have negative ones.
    if (!/^-?\d{1,16}$/.test(req.params.id) || !Number.isSafeInteger(Number(req.params.id))) {
      throw new DomainError('invalid', 'id: a chat id is an integer');
    }
    const id = Number(req.params.id);
    bot.removeChat(id, actorOf(res));
    res.json({ status: 'removed', id });
  });

  return router;
}
