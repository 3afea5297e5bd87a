/**
 * The runner's routes: upload an input image, execute a workflow, poll a prompt's status, fetch
 * its result. Parse and delegate; the logic lives in RunnerService and JobQueries.
 */
import express from 'express';
import { pipeline } from 'node:stream/promises';
import { contentDisposition } from '../http/content-disposition.js';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { sendFileResponse, USER_FILE_HEADERS } from '../http/file-response.js';
import { submitterOf } from '../http/submitter.js';
import { actorOf } from '../http/actor.js';
import { assertImage, type Uploads } from '../http/uploads.js';
import type { JobQueries } from './job-queries.service.js';
import type { RunnerService } from './runner.service.js';
import { executeFields, runResultQuery } from '../contracts/jobs.contract.js';

export function runRoutes(runner: RunnerService, queries: JobQueries, uploads: Uploads): express.Router {
  const router = express.Router();

  router.post('/api/run/upload-image', uploads.single('file', 'image'), async (req, res) => {
    if (!req.file) throw new DomainError('invalid', 'Missing file: send the image as multipart field "file"');
    await assertImage(req.file, 'file');
    res.json({ filename: await runner.uploadImage(req.file, actorOf(res).userId) });
  });

  router.post('/api/run/:id/execute', uploads.single('input_image', 'image'), async (req, res) => {
    // A workflow that does not exist is a 404 whatever the form says.
    await runner.assertWorkflow(String(req.params.id));
    const { params } = validate(executeFields, req.body ?? {}, { ownMessages: true });
    if (req.file) await assertImage(req.file, 'input_image');
    res.json(await runner.execute(String(req.params.id), params, req.file, { submitter: submitterOf(req, res), ownerId: actorOf(res).userId, actor: actorOf(res), countsFor: actorOf(res).userId }));
  });

  router.get('/api/run/status/:promptId', async (req, res) => {
    res.json(await queries.status(String(req.params.promptId), actorOf(res)));
  });

  router.get('/api/run/result/:promptId', async (req, res) => {
    const { output_type } = validate(runResultQuery, req.query, 'query');
    const result = await queries.result(String(req.params.promptId), output_type, actorOf(res));
    const disposition = contentDisposition('inline', result.filename);
    if ('path' in result) {
      await sendFileResponse(req, res, result.path, { contentType: result.contentType, disposition, within: result.within, missing: 'Output file is missing' });
      return;
    }
    res.set(USER_FILE_HEADERS);
    res.set('Content-Type', result.contentType);
    res.set('Content-Disposition', disposition);
    await pipeline(result.stream, res);
  });

  return router;
}
