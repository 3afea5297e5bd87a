/**
 * The engine's HTTP API as its clients call it, under `/comfy` and `/comfy/api` (and at the root of
 * `COMFY_API_PORT`, which Studio maps onto `/comfy`): the engine's request and answer shapes, its
 * 400 body for a refused prompt. Authentication, the Host/origin rules and who may call what
 * (`read` for reads, `run` for changes) are Studio's, before these routes. Nothing else of the
 * engine (settings, user data, the manager, `/internal`) is served: those paths are 404.
 */
import express from 'express';
import { actorOf } from '../http/actor.js';
import { submitterOf } from '../http/submitter.js';
import { validate } from '../http/errors.js';
import { DomainError } from '../domain-error.js';
import type { UploadedFile, Uploads } from '../http/uploads.js';
import { assertImage } from '../http/uploads.js';
import { viewQuery, type ViewQuery } from '../contracts/engine.contract.js';
import { comfyApiToggle, type ComfyApiState } from '../contracts/comfy-api.contract.js';
import type { Actor } from '../http/actor.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import { assertOn, ComfyRefusal, type ComfyApiService } from './comfy-api.service.js';
import { MODEL_FOLDERS, modelsIn, unionObjectInfo } from './pool-nodes.js';

/** The door's path prefixes (the engine serves every route bare and under `/api`). */
export const COMFY_PREFIXES = ['/comfy', '/comfy/api'] as const;
const at = (route: string) => COMFY_PREFIXES.map((prefix) => `${prefix}${route}`);

export interface ComfyRoutesDeps {
  service: ComfyApiService;
  uploads: Uploads;
  enabled: () => boolean;
  state: () => ComfyApiState;
  setEnabled: (on: boolean) => ComfyApiState;
  objectInfos: () => Promise<ObjectInfo[]>;
  /** The engine's `/system_stats` (this computer's engine, else the first that answers). */
  systemStats: () => Promise<unknown>;
  /** The embeddings some engine has (names without extension). */
  embeddings: () => Promise<string[]>;
  /** Stores an uploaded input for `ownerId`; its stored name (maybe `sub/name`). */
  storeInput: (file: UploadedFile, ownerId: string) => Promise<string>;
  /** Whether `actor` may see the file (another person's answers as missing). */
  mayView: (actor: Actor, query: ViewQuery) => boolean;
  /** Serves a file as Studio's `/api/engine/view` does (shared folders, else streamed from the engine). */
  serveView: (req: express.Request, res: express.Response, query: ViewQuery) => Promise<void>;
}

/** The engine reads a JSON body whatever its Content-Type (some clients send none). */
const anyJson = express.json({ type: () => true, limit: '20mb' });

export function comfyApiRoutes(deps: ComfyRoutesDeps): express.Router {
  const { service } = deps;
  const router = express.Router();
  router.get('/api/admin/comfy-api', (_req, res) => void res.json(deps.state()));
  router.put('/api/admin/comfy-api', (req, res) => void res.json(deps.setEnabled(validate(comfyApiToggle, req.body).enabled)));

  // Everything under the prefixes is the door's: off, it is not there at all.
  router.use(['/comfy', '/comfy/{*rest}'], (_req, _res, next) => {
    assertOn(deps.enabled());
    next();
  });
  router.post(at('/prompt'), anyJson, async (req, res) => {
    try {
      res.json(await service.submit((req.body ?? {}) as Record<string, unknown>, actorOf(res), submitterOf(req, res)));
    } catch (err) {
      if (err instanceof ComfyRefusal) return void res.status(400).json(err.body);
      throw err;
    }
  });
  router.get(at('/prompt'), (req, res) => void res.json(service.status(actorOf(res), typeof req.query.clientId === 'string' ? req.query.clientId : null)));
  router.get(at('/queue'), (_req, res) => void res.json(service.queue(actorOf(res))));
  router.post(at('/queue'), anyJson, async (req, res) => {
    await service.manageQueue(bodyOf(req), actorOf(res));
    res.status(200).end();
  });
  router.post(at('/interrupt'), anyJson, async (req, res) => {
    await service.interrupt(bodyOf(req).prompt_id, actorOf(res));
    res.status(200).end();
  });
  router.get(at('/history'), async (req, res) => {
    res.json(await service.history(actorOf(res), count(req.query.max_items), count(req.query.offset)));
  });
  router.get(at('/history/:id'), async (req, res) => void res.json(await service.historyOf(String(req.params.id), actorOf(res))));
  router.post(at('/history'), anyJson, (req, res) => {
    service.clearHistory(bodyOf(req), actorOf(res));
    res.status(200).end();
  });
  router.get(at('/object_info'), async (_req, res) => void res.json(unionObjectInfo(await deps.objectInfos())));
  router.get(at('/object_info/:cls'), async (req, res) => {
    const node = unionObjectInfo(await deps.objectInfos())[String(req.params.cls)];
    res.json(node ? { [String(req.params.cls)]: node } : {});
  });
  router.get(at('/models'), (_req, res) => void res.json(MODEL_FOLDERS));
  router.get(at('/models/:folder'), async (req, res) => {
    const files = modelsIn(unionObjectInfo(await deps.objectInfos()), String(req.params.folder));
    if (!files) throw new DomainError('not_found', `No model folder ${String(req.params.folder)}`);
    res.json(files);
  });
  router.get(at('/embeddings'), async (_req, res) => void res.json(await deps.embeddings()));
  router.get(at('/system_stats'), async (_req, res) => void res.json(await deps.systemStats()));
  router.get(at('/features'), (_req, res) => void res.json({ supports_preview_metadata: true, max_upload_size: 50 * 1024 * 1024 }));
  for (const route of ['/upload/image', '/upload/mask']) {
    router.post(at(route), deps.uploads.single('image', 'image'), async (req, res) => {
      if (!req.file) throw new DomainError('invalid', 'No file in the "image" field');
      await assertImage(req.file, 'image');
      const stored = await deps.storeInput(req.file, actorOf(res).userId);
      const slash = stored.lastIndexOf('/');
      res.json({ name: stored.slice(slash + 1), subfolder: slash < 0 ? '' : stored.slice(0, slash), type: 'input' });
    });
  }
  router.get(at('/view'), async (req, res) => {
    // The engine's default folder is `output` (Studio's own route defaults to `input`).
    const query = validate(viewQuery, { ...(req.query as Record<string, unknown>), type: req.query.type ?? 'output' }, 'query');
    if (!deps.mayView(actorOf(res), query)) throw new DomainError('not_found', `File not found: ${query.filename}`);
    await deps.serveView(req, res, query);
  });
  return router;
}

function bodyOf(req: express.Request): Record<string, unknown> {
  return typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, unknown>) : {};
}

function count(value: unknown): number | undefined {
  const n = typeof value === 'string' ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
