/**
 * Queue and history routes: `GET /api/admin/queue`, `GET /api/admin/history`, one job
 * (`GET /api/admin/history/{prompt_id}`, for the job page), delete, retry and the per-job ZIP package.
 */
import express from 'express';
import { z } from 'zod';
import { HttpError, validate } from '../http/errors.js';
import { submitterOf } from '../http/submitter.js';
import { writeJobPackage } from './job-package.js';
import type { JobQueries } from './job-queries.service.js';
import type { JobStore } from './job.store.js';
import type { RunnerService } from './runner.service.js';

const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  status: z.enum(['completed', 'error', 'stalled', 'cancelled']).optional(),
  workflow_id: z.string().min(1).optional(),
});
const deleteBody = z.object({ prompt_ids: z.array(z.string().min(1)) });

export interface JobsRouteDeps {
  queries: JobQueries;
  runner: RunnerService;
  jobs: JobStore;
  dirs: { input: string; output: string };
}

/** Jobs routes. */
export function jobsRoutes({ queries, runner, jobs, dirs }: JobsRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/queue', (_req, res) => {
    res.json(queries.queue());
  });

  router.get('/api/admin/history', (req, res) => {
    const q = validate(historyQuery, req.query, 'query');
    res.json(queries.history({ limit: q.limit, offset: q.offset, status: q.status, workflowId: q.workflow_id }));
  });

  router.post('/api/admin/history/delete', async (req, res) => {
    const { prompt_ids } = validate(deleteBody, req.body ?? {});
    res.json(await queries.delete(prompt_ids));
  });

  router.post('/api/admin/history/retry', async (req, res) => {
    const body = (req.body ?? {}) as { prompt_id?: unknown };
    if (typeof body.prompt_id !== 'string' || !body.prompt_id) throw new HttpError(400, 'Missing prompt_id');
    res.json(await runner.retry(body.prompt_id, submitterOf(req, res)));
  });

  router.get('/api/admin/history/:promptId', (req, res) => {
    res.json(queries.job(String(req.params.promptId)));
  });

  router.get('/api/admin/history/:promptId/package', async (req, res) => {
    const job = jobs.get(String(req.params.promptId));
    if (!job) throw new HttpError(404, `Job not found: ${String(req.params.promptId)}`);
    const name = (job.output_dir ?? job.prompt_id).replace(/[^A-Za-z0-9._-]/g, '_');
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', `attachment; filename="job_${name}.zip"`);
    await writeJobPackage(job, dirs, res);
  });

  return router;
}
