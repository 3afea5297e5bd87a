/**
 * `/api/admin/users` (owner and admins: the route policy in `http/route-policy.ts` keeps the
 * others out), `GET /api/me`, and `/api/me/keys` (everyone, for themselves): parse and delegate.
 */
import express from 'express';
import { actorOf } from '../http/actor.js';
import { validate } from '../http/errors.js';
import { newKeyBody, newUserBody, userPatchBody } from '../contracts/users.contract.js';
import type { UsersService } from './users.service.js';

export function usersRoutes(users: UsersService): express.Router {
  const router = express.Router();
  router.get('/api/admin/users', (_req, res) => {
    res.json({ users: users.list() });
  });
  router.post('/api/admin/users', async (req, res) => {
    res.json(await users.add(actorOf(res), validate(newUserBody, req.body, { ownMessages: true, notObject: 'Send a JSON object {name, role, password}' })));
  });
  router.patch('/api/admin/users/:id', async (req, res) => {
    res.json(await users.change(actorOf(res), req.params.id, validate(userPatchBody, req.body, { ownMessages: true, notObject: 'Send a JSON object' })));
  });
  router.delete('/api/admin/users/:id', async (req, res) => {
    res.json(await users.disable(actorOf(res), req.params.id));
  });
  router.get('/api/me', (_req, res) => {
    res.json(users.me(actorOf(res)));
  });
  router.get('/api/me/keys', (_req, res) => {
    res.json({ keys: users.keys(actorOf(res)) });
  });
  router.post('/api/me/keys', (req, res) => {
    res.json(users.makeKey(actorOf(res), validate(newKeyBody, req.body, { ownMessages: true, notObject: 'Send a JSON object {name, scope}' })));
  });
  router.delete('/api/me/keys/:id', (req, res) => {
    users.revokeKey(actorOf(res), req.params.id);
    res.json({ ok: true });
  });
  return router;
}
