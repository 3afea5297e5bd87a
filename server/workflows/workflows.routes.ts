/**
 * Workflow listing and graph building: `GET /api/admin/workflows[/{id}]`, `GET /api/run/{id}`,
 * `POST /api/run/{id}/build?format=api|workflow`.
 */
import express from 'express';
import { validate } from '../http/errors.js';
import type { Uploads } from '../http/uploads.js';
import { actorOf } from '../http/actor.js';
import { buildGraph } from './graph-builder.js';
import { apiToUiWorkflow } from './graph-to-ui.js';
import { EXISTING_INPUT_IMAGE_KEY } from './params.js';
import type { WorkflowService } from './workflow.service.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import { buildFields, buildQuery } from '../contracts/workflows.contract.js';

/** Nothing runs on `/build`, so an absent image is shown as this name in the exported graph. */
const PLACEHOLDER_IMAGE = 'example.png';

/** What `/build` asks of a person's allow-lists: each throws a 403 naming what is not allowed. */
export interface RunChecks {
  checkWorkflow(workflowId: string): void;
  checkModels(graph: ApiGraph): void;
}

export function workflowsRoutes(workflows: WorkflowService, uploads: Uploads, runChecks?: (userId: string) => RunChecks): express.Router {
  const router = express.Router();

  router.get('/api/admin/workflows', async (_req, res) => {
    res.json(await workflows.list());
  });

  router.get(['/api/admin/workflows/:id', '/api/run/:id'], async (req, res) => {
    res.json(await workflows.get(String(req.params.id)));
  });

  router.post('/api/run/:id/build', uploads.single('input_image', 'image'), async (req, res) => {
    const { format } = validate(buildQuery, req.query, 'query');
    const definition = await workflows.definition(String(req.params.id));
    // The graph a person may not run is not theirs to export either: the same 403s as execute's (issue 43).
    const checks = runChecks?.(actorOf(res).userId);
    checks?.checkWorkflow(definition.manifest.id);
    const { params } = validate(buildFields, req.body ?? {}, { ownMessages: true });
    const imageInput = definition.manifest.inputs.find((i) => i.type === 'image');
    const uploadedImage = req.file?.originalname ?? (imageInput && params[imageInput.id] === undefined && !params[EXISTING_INPUT_IMAGE_KEY] ? PLACEHOLDER_IMAGE : undefined);
    const { graph } = buildGraph(definition, params, { uploadedImage });
    checks?.checkModels(graph);
    if (format === 'api') {
      res.json(graph);
      return;
    }
    res.json(apiToUiWorkflow(graph, await workflows.objectInfo()));
  });

  return router;
}
