/**
 * Studio's queue: cancel, clear, move, pause/resume, state; and "retry all stalled". Parse and
 * delegate; the logic is in JobQueueService (and the runner for retries).
 */
import express from 'express';
import { cancelBody, moveBody, type RetryStalledResult } from '../../contracts/queue.contract.js';
import { validate } from '../../http/errors.js';
import { submitterOf } from '../../http/submitter.js';
import { actorOf, type Actor } from '../../http/actor.js';
import type { JobQueueService } from './job-queue.service.js';
import type { AuditedJobAction } from '../job-audit.js';

export interface QueueRouteDeps {
  queue: JobQueueService;
  /** Retries every stalled job the actor sees that was not retried yet (`retry-stalled.ts`). */
  retryStalled: (submitter: string, actor: Actor) => Promise<RetryStalledResult>;
  /** Records an owner's or admin's action on another person's job. */
  audited: AuditedJobAction;
}

export function queueRoutes({ queue, retryStalled, audited }: QueueRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/queue/state', (_req, res) => {
    res.json(queue.state());
  });

  router.post('/api/admin/queue/cancel', async (req, res) => {
    const { prompt_id } = validate(cancelBody, req.body ?? {});
    const actor = actorOf(res);
    res.json(await audited(actor, 'cancel', [prompt_id], () => queue.cancel(prompt_id, actor)));
  });

  router.post('/api/admin/queue/clear', (_req, res) => {
    res.json({ cancelled: queue.clear(actorOf(res)) });
  });

  router.post('/api/admin/queue/move', async (req, res) => {
    const { prompt_id, position } = validate(moveBody, req.body ?? {});
    const actor = actorOf(res);
    res.json(await audited(actor, 'move', [prompt_id], () => queue.move(prompt_id, position, actor)));
  });

  router.post('/api/admin/queue/pause', (_req, res) => {
    res.json(queue.setPaused(true));
  });

  router.post('/api/admin/queue/resume', (_req, res) => {
    res.json(queue.setPaused(false));
  });

  router.post('/api/admin/history/retry-stalled', async (req, res) => {
    res.json(await retryStalled(submitterOf(req, res), actorOf(res)));
  });

  return router;
}
