/**
 * Preset routes (spec "Presets", plus `POST /from-job/{prompt_id}`): parse and delegate.
 */
import express from 'express';
import { contentDisposition } from '../http/content-disposition.js';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import { fromJobSchema, presetInputSchema, presetRunFields, renameSchema } from '../contracts/presets.contract.js';
import { sendFileResponse } from '../http/file-response.js';
import { submitterOf } from '../http/submitter.js';
import { actorOf } from '../http/actor.js';
import { assertImage, readUploadText, type Uploads } from '../http/uploads.js';
import type { PresetRunService } from './preset-run.service.js';
import type { PresetsService } from './presets.service.js';

const BASE = '/api/admin/presets';
const SEND_JSON_OBJECT = 'Send a JSON object body (Content-Type: application/json)';

export function presetsRoutes(presets: PresetsService, runs: PresetRunService, uploads: Uploads): express.Router {
  const router = express.Router();

  router.get(BASE, async (_req, res) => {
    res.json(await presets.list(actorOf(res)));
  });

  router.post(BASE, async (req, res) => {
    res.json(await presets.createPreset(validate(presetInputSchema, req.body, { notObject: SEND_JSON_OBJECT }), actorOf(res)));
  });

  // Before `/:id` routes of the same method so `import` is never read as an id.
  router.post(`${BASE}/import`, uploads.single('file', 'json'), async (req, res) => {
    if (!req.file) throw new DomainError('invalid', 'Upload the preset as a JSON file in the multipart field "file"');
    res.json(await presets.importPreset(await readUploadText(req.file), req.file.originalname, actorOf(res)));
  });

  router.post(`${BASE}/from-job/:promptId`, async (req, res) => {
    res.json(await presets.fromJob(String(req.params.promptId), validate(fromJobSchema, req.body ?? {}), actorOf(res)));
  });

  router.get(`${BASE}/:id`, async (req, res) => {
    res.json(await presets.detail(String(req.params.id), actorOf(res)));
  });

  router.put(`${BASE}/:id/rename`, async (req, res) => {
    res.json(await presets.rename(String(req.params.id), validate(renameSchema, req.body ?? {}, { notObject: SEND_JSON_OBJECT }), actorOf(res)));
  });

  router.delete(`${BASE}/:id`, async (req, res) => {
    res.json(await presets.delete(String(req.params.id), actorOf(res)));
  });

  router.get(`${BASE}/:id/placeholders`, async (req, res) => {
    res.json(await runs.placeholders(String(req.params.id), actorOf(res)));
  });

  router.post(`${BASE}/:id/run`, uploads.single('input_image', 'image'), async (req, res) => {
    const fields = validate(presetRunFields, req.body ?? {}, { ownMessages: true });
    if (req.file) await assertImage(req.file, 'input_image');
    res.json(await runs.run(String(req.params.id), { ...fields, input_image: req.file, submitter: submitterOf(req, res) }, actorOf(res)));
  });

  router.get(`${BASE}/:id/export`, async (req, res) => {
    const file = await presets.exportFile(String(req.params.id), actorOf(res));
    await sendFileResponse(req, res, file.path, {
      contentType: 'application/json; charset=utf-8',
      disposition: contentDisposition('attachment', file.filename),
      within: file.within,
    });
  });

  return router;
}
