/**
 * `/api/notifications/targets` (issue 47): each person's own notification targets — list, add,
 * change, delete, and a test message. Parse and delegate; another person's target is missing.
 */
import express from 'express';
import { actorOf } from '../http/actor.js';
import { validate } from '../http/errors.js';
import { newTargetBody, targetPatchBody } from '../contracts/notifications.contract.js';
import type { NotificationsService } from './notifications.service.js';

const BASE = '/api/notifications/targets';

export function notificationsRoutes(service: NotificationsService): express.Router {
  const router = express.Router();
  router.get(BASE, (_req, res) => {
    res.json({ targets: service.list(actorOf(res)) });
  });
  router.post(BASE, (req, res) => {
    res.json(service.add(actorOf(res), validate(newTargetBody, req.body, { ownMessages: true, notObject: 'Send a JSON object {kind, url, events}' })));
  });
  router.patch(`${BASE}/:id`, (req, res) => {
    res.json(service.change(actorOf(res), req.params.id, validate(targetPatchBody, req.body, { ownMessages: true, notObject: 'Send a JSON object' })));
  });
  router.delete(`${BASE}/:id`, (req, res) => {
    service.remove(actorOf(res), req.params.id);
    res.json({ ok: true });
  });
  router.post(`${BASE}/:id/test`, async (req, res) => {
    res.json(await service.test(actorOf(res), req.params.id));
  });
  return router;
}
