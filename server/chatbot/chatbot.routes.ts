/**
 * `/api/admin/chatbot/`: status, start, stop (spec "Chat bot"). Results are sent as
 * `{result: "<text>"}` (the spec leaves the field name open; see the README).
 */
import express from 'express';
import type { ChatbotService } from './chatbot.service.js';

/** Chat bot routes. */
export function chatbotRoutes(bot: ChatbotService): express.Router {
  const router = express.Router();

  router.get('/api/admin/chatbot/status', async (_req, res) => {
    const error = await bot.libraryError();
    // Spec: "when the bot library is missing, an error message is returned instead" (still a 200).
    res.json(error ? { ...bot.status(), error } : bot.details());
  });

  router.post('/api/admin/chatbot/start', async (_req, res) => {
    res.json({ result: await bot.start() });
  });

  router.post('/api/admin/chatbot/stop', async (_req, res) => {
    res.json({ result: await bot.stop() });
  });

  return router;
}
