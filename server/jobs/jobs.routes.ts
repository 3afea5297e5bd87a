/**
 * Queue and history routes: `GET /api/admin/queue`, `GET /api/admin/history`, one job
 * (`GET /api/admin/history/{prompt_id}`, for the job page), delete, retry, star and the per-job ZIP package.
 */
import express from 'express';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { writeJobPackage } from './job-package.js';
import type { JobQueries } from './job-queries.service.js';
import type { RunnerService } from './runner.service.js';
import { deleteJobsBody, historyQuery, retryBody, starBody } from '../contracts/jobs.contract.js';
import { submitterOf } from '../http/submitter.js';
import { actorOf } from '../http/actor.js';
import type { AuditedJobAction } from './job-audit.js';

export interface JobsRouteDeps {
  queries: JobQueries;
  runner: RunnerService;
  dirs: { input: string; output: string };
  /** Records an owner's or admin's action on another person's job. */
  audited: AuditedJobAction;
  /** The job's lock (provenance), carried in its package as `lock.json`. */
  lockOf?: (promptId: string) => unknown;
}

export function jobsRoutes({ queries, runner, dirs, audited, lockOf }: JobsRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/queue', (_req, res) => {
    res.json(queries.queue(actorOf(res)));
  });

  router.get('/api/admin/history', (req, res) => {
    const q = validate(historyQuery, req.query, 'query');
    const actor = actorOf(res);
    const ownerId = q.owner === 'mine' ? actor.userId : q.owner === 'everyone' ? undefined : q.owner;
    res.json(queries.history({ limit: q.limit, offset: q.offset, status: q.status, workflowId: q.workflow_id, text: q.q || undefined, fromMs: q.from, toMs: q.to, starred: q.starred, ownerId }, actor));
  });

  router.post('/api/admin/history/delete', async (req, res) => {
    const { prompt_ids } = validate(deleteJobsBody, req.body ?? {});
    const actor = actorOf(res);
    res.json(await audited(actor, 'delete', prompt_ids, () => queries.delete(prompt_ids, actor)));
  });

  router.post('/api/admin/history/retry', async (req, res) => {
    const { prompt_id } = validate(retryBody, req.body ?? {}, { detail: 'Missing prompt_id' });
    const actor = actorOf(res);
    res.json(await audited(actor, 'retry', [prompt_id], () => runner.retry(prompt_id, submitterOf(req, res), actor)));
  });

  router.get('/api/admin/history/:promptId', (req, res) => {
    res.json(queries.job(String(req.params.promptId), actorOf(res)));
  });

  router.post('/api/admin/history/:promptId/star', async (req, res) => {
    const { starred } = validate(starBody, req.body ?? {}, { ownMessages: true });
    const id = String(req.params.promptId);
    const actor = actorOf(res);
    res.json(await audited(actor, 'star', [id], () => queries.star(id, starred, actor)));
  });

  router.get('/api/admin/history/:promptId/package', async (req, res) => {
    const job = queries.visible(String(req.params.promptId), actorOf(res));
    if (!job) throw new DomainError('not_found', `Job not found: ${String(req.params.promptId)}`);
    const name = (job.output_dir ?? job.prompt_id).replace(/[^A-Za-z0-9._-]/g, '_');
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', `attachment; filename="job_${name}.zip"`);
    // A client that leaves midway ends the stream; that is not an error of the server's.
    await writeJobPackage(job, dirs, res, lockOf?.(job.prompt_id)).catch((err: unknown) => {
      if (!res.destroyed) throw err;
    });
  });

  return router;
}
