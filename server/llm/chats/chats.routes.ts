/**
 * Kept LLM chats (README "LLM chats"). Parse and delegate to the store.
 */
import express from 'express';
import { notFound } from '../../domain-error.js';
import { validate } from '../../http/errors.js';
import { chatAppendBody, chatCreateBody, chatExportQuery, chatPatchBody } from '../../contracts/llm-chats.contract.js';
import { chatMarkdown, exportFileName } from './chat-export.js';
import type { ChatStore } from './chat.store.js';
import { actorOf, seesEveryone } from '../../http/actor.js';

/** Whose chats a request reaches: everyone's for owner and admins, else the person's own. */
function ownerOf(res: express.Response): string | undefined {
  const actor = actorOf(res);
  return seesEveryone(actor) ? undefined : actor.userId;
}

/** A title from the first user message when none is given. */
function titleOf(title: string | undefined, messages: Array<{ role: string; content: string }> | undefined): string {
  if (title) return title;
  const first = messages?.find((m) => m.role === 'user')?.content.trim().replace(/\s+/g, ' ');
  return first ? (first.length > 60 ? `${first.slice(0, 57)}…` : first) : 'New chat';
}

export function chatsRoutes(chats: ChatStore): express.Router {
  const router = express.Router();
  const found = <T>(value: T | null, id: string): T => {
    if (value === null) throw notFound(`No chat ${id}`);
    return value;
  };

  router.get('/api/admin/llm/chats', (_req, res) => {
    res.json({ chats: chats.list(ownerOf(res)) });
  });

  router.post('/api/admin/llm/chats', (req, res) => {
    const body = validate(chatCreateBody, req.body ?? {});
    res.status(201).json(chats.create({ title: titleOf(body.title, body.messages), model: body.model ?? null, settings: body.settings ?? {}, messages: body.messages ?? [] }, actorOf(res).userId));
  });

  router.get('/api/admin/llm/chats/:id', (req, res) => {
    res.json(found(chats.get(req.params.id, ownerOf(res)), req.params.id));
  });

  router.patch('/api/admin/llm/chats/:id', (req, res) => {
    res.json(found(chats.update(req.params.id, validate(chatPatchBody, req.body ?? {}), ownerOf(res)), req.params.id));
  });

  router.post('/api/admin/llm/chats/:id/messages', (req, res) => {
    const body = validate(chatAppendBody, req.body ?? {});
    const chat = found(chats.get(req.params.id, ownerOf(res)), req.params.id);
    // A chat still called "New chat" takes its first question as its title.
    if (chat.title === 'New chat' && chat.messages.length === 0) chats.update(chat.id, { title: titleOf(undefined, body.messages) });
    res.json(found(chats.append(req.params.id, body.messages, ownerOf(res)), req.params.id));
  });

  router.delete('/api/admin/llm/chats/:id', (req, res) => {
    found(chats.delete(req.params.id, ownerOf(res)) ? true : null, req.params.id);
    res.json({ status: 'deleted', id: req.params.id });
  });

  router.get('/api/admin/llm/chats/:id/export', (req, res) => {
    const { format } = validate(chatExportQuery, req.query, 'query');
    const chat = found(chats.get(req.params.id, ownerOf(res)), req.params.id);
    res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(chat, format)}"`);
    if (format === 'json') return void res.type('application/json').send(JSON.stringify(chat, null, 2));
    res.type('text/markdown; charset=utf-8').send(chatMarkdown(chat));
  });

  return router;
}
