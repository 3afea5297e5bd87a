/**
 * Batch routes (issue 45): make a batch, list and read batches, pause/resume/cancel one, and its
 * exports (`grid.png`, `outputs.zip`, `map.csv`). Parse and delegate.
 */
import express from 'express';
import { z } from 'zod';
import { validate } from '../http/errors.js';
import { actorOf } from '../http/actor.js';
import { submitterOf } from '../http/submitter.js';
import { batchCreateBody } from '../contracts/batches.contract.js';
import type { BatchesService } from './batches.service.js';
import { mapCsv, writeBatchZip } from './batch-files.js';
import { gridView, renderGridPng } from './batch-grid-image.js';

const BASE = '/api/admin/batches';
const axisIndex = z.coerce.number().int().min(0).max(2).optional();
const gridQuery = z.object({ x: axisIndex, y: axisIndex });

export function batchesRoutes(batches: BatchesService, outputsDir: string): express.Router {
  const router = express.Router();

  router.post(BASE, async (req, res) => {
    const body = validate(batchCreateBody, req.body, { ownMessages: true, notObject: 'Send a JSON object body (Content-Type: application/json)' });
    res.json(await batches.create(body, actorOf(res), submitterOf(req, res)));
  });

  router.get(BASE, (_req, res) => {
    res.json(batches.list(actorOf(res)));
  });

  router.get(`${BASE}/:id`, (req, res) => {
    res.json(batches.detail(String(req.params.id), actorOf(res)));
  });

  router.post(`${BASE}/:id/pause`, (req, res) => {
    res.json(batches.pause(String(req.params.id), actorOf(res)));
  });

  router.post(`${BASE}/:id/resume`, (req, res) => {
    res.json(batches.resume(String(req.params.id), actorOf(res)));
  });

  router.post(`${BASE}/:id/cancel`, async (req, res) => {
    res.json(await batches.cancel(String(req.params.id), actorOf(res)));
  });

  router.get(`${BASE}/:id/grid.png`, async (req, res) => {
    const query = validate(gridQuery, req.query, 'query');
    const { batch, cells } = batches.cells(String(req.params.id), actorOf(res));
    const png = await renderGridPng(batch.axes, cells, outputsDir, gridView(batch.axes, query.x, query.y));
    res.set('Content-Type', 'image/png');
    res.set('Content-Disposition', `inline; filename="batch-${batch.id.slice(0, 8)}-grid.png"`);
    res.send(png);
  });

  router.get(`${BASE}/:id/map.csv`, (req, res) => {
    const { batch, cells } = batches.cells(String(req.params.id), actorOf(res));
    res.set('Content-Type', 'text/csv; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="batch-${batch.id.slice(0, 8)}-map.csv"`);
    res.send(mapCsv(batch, cells, outputsDir));
  });

  router.get(`${BASE}/:id/outputs.zip`, async (req, res) => {
    const { batch, cells } = batches.cells(String(req.params.id), actorOf(res));
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    res.set('Content-Type', 'application/zip');
    res.set('Content-Disposition', `attachment; filename="batch-${batch.id.slice(0, 8)}-outputs.zip"`);
    await writeBatchZip(batch, cells, outputsDir, res, controller.signal).catch((err: unknown) => {
      if (!controller.signal.aborted) throw err;
    });
  });

  return router;
}
