/**
 * The engine's JSON routes: system stats, features, object_info, prompt, queue, history,
 * interrupt, and the small listing routes clients probe. Parsing only; the logic lives in
 * StandinService and the stores.
 */
import os from 'node:os';
import express, { type IRoute, type Request, type RequestHandler, type Router } from 'express';
import { bodyJson, MAX_UPLOAD_BYTES, methodNotAllowed, orderedObjectJson, textBody } from './http.util.js';
import type { NodeCatalog } from './object-info.store.js';
import type { StandinService } from './standin.service.js';

export interface EngineRouteDeps {
  service: StandinService;
  catalog: NodeCatalog;
  /** The model files of an engine model folder, or null when the engine has no such folder. */
  files(folder: string): string[] | null;
  /** What the engine reports as its command line (the stand-in's effective flags). */
  argv(): string[];
}

/** The version the stand-in claims; clients branch on it like on a real engine's. */
const STANDIN_VERSION = '0.29.0-standin';

/** The server feature flags (`GET /features` and the WS handshake reply). */
export function serverFeatures(): Record<string, unknown> {
  return {
    supports_preview_metadata: true,
    supports_model_type_tags: true,
    max_upload_size: MAX_UPLOAD_BYTES,
    extension: { manager: { supports_v4: true } },
    node_replacements: true,
    assets: false,
  };
}

const MODEL_FOLDERS = [
  'checkpoints', 'configs', 'loras', 'vae', 'text_encoders', 'diffusion_models', 'clip_vision', 'style_models', 'embeddings',
  'diffusers', 'vae_approx', 'controlnet', 'gligen', 'upscale_models', 'custom_nodes', 'hypernetworks', 'photomaker', 'classifiers',
];

/** Routes answering like the engine's `server.py`. */
export function engineRoutes(deps: EngineRouteDeps): Router {
  const { service, catalog } = deps;
  const router = express.Router({ caseSensitive: true, strict: true });
  const routes: IRoute[] = [];
  const route = (path: string) => {
    routes.push(router.route(path));
    return routes.at(-1) as IRoute;
  };
  route('/').get((_req, res) => res.type('text').send('Stand-in engine (ComfyUI protocol, no GPU)\n'));
  route('/system_stats').get((_req, res) => res.json(systemStats(deps.argv())));
  route('/features').get((_req, res) => res.json(serverFeatures()));
  route('/object_info').get((_req, res) => res.type('json').send(catalog.listing()));
  route('/object_info/*name').get((req, res) => res.type('json').send(catalog.single(wildcard(req, 'name'))));
  route('/prompt')
    .get((_req, res) => res.json({ exec_info: { queue_remaining: service.queue.remaining() } }))
    .post(textBody, (req, res) => {
      const body = bodyJson(req);
      // A JSON list has no "prompt" key (400 no_prompt); a bare string or number crashes the engine (500).
      if (typeof body !== 'object' || body === null) throw new TypeError('argument of type is not iterable');
      const result = service.submit(Array.isArray(body) ? {} : (body as Record<string, unknown>));
      res.status(result.status).json(result.body);
    });
  route('/queue')
    .get((_req, res) => res.json(service.queue.snapshot()))
    .post(textBody, clearOrDelete(() => service.clearQueue(), (ids) => service.deleteQueued(ids)));
  route('/interrupt').post(textBody, (req, res) => {
    const promptId = asRecord(lenientJson(req)).prompt_id;
    service.interrupt(typeof promptId === 'string' && promptId !== '' ? promptId : null);
    res.end();
  });
  route('/history')
    .get((req, res) => {
      const query = new URL(req.originalUrl, 'http://localhost').searchParams;
      res.type('json').send(orderedObjectJson(service.history.list(pyIntParam(query.get('max_items')), pyIntParam(query.get('offset')))));
    })
    .post(textBody, clearOrDelete(() => service.history.clear(), (ids) => ids.forEach((id) => service.history.delete(id))));
  route('/history/*id').get((req, res) => res.json(service.history.one(wildcard(req, 'id'))));
  route('/free').post(textBody, (_req, res) => res.end());
  route('/embeddings').get((_req, res) => res.json([]));
  route('/extensions').get((_req, res) => res.json([]));
  route('/models').get((_req, res) => res.json(MODEL_FOLDERS));
  route('/models/:folder').get((req, res) => {
    const folder = String(req.params.folder);
    if (!MODEL_FOLDERS.includes(folder)) return void res.status(404).end();
    res.json(deps.files(folder) ?? []);
  });
  for (const known of routes) known.all(methodNotAllowed);
  return router;
}

/** `POST /queue` and `POST /history`: `{clear: true}` and/or `{delete: [ids]}`, in that order. */
function clearOrDelete(clear: () => void, remove: (ids: string[]) => void): RequestHandler {
  return (req, res) => {
    const body = asRecord(bodyJson(req));
    if (Object.hasOwn(body, 'clear') && body.clear) clear();
    if (Array.isArray(body.delete)) remove(body.delete.map(String));
    res.end();
  };
}

/** A `*name` path parameter as the engine sees it: the rest of the path, slashes included. */
function wildcard(req: Request, name: string): string {
  const value = (req.params as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}

/** The JSON of a body the engine reads leniently (`/interrupt`): none, or not JSON, is `{}`. */
function lenientJson(req: Request): unknown {
  try {
    return bodyJson(req);
  } catch {
    return {};
  }
}

/** The stand-in's one device: the CPU, and it says it is the stand-in (it has no GPU). */
const STANDIN_DEVICE = 'cpu (stand-in engine, no GPU)';

/**
 * The box's numbers in the engine's shape (bytes everywhere). The stand-in computes nothing on a
 * GPU, so it claims none: its one device is the CPU, as the engine started with `--cpu` reports it
 * (system memory as the device's memory), named so every page can say it is the stand-in.
 */
function systemStats(argv: string[]): Record<string, unknown> {
  return {
    system: {
      // Like 0.29.0: sys.platform ("linux", "win32", "darwin").
      os: process.platform,
      ram_total: os.totalmem(),
      ram_free: os.freemem(),
      comfyui_version: STANDIN_VERSION,
      required_frontend_version: '1.47.10',
      installed_templates_version: null,
      required_templates_version: '0.11.19',
      comfy_package_versions: [
        { name: 'comfyui-frontend-package', installed: null, required: '1.47.10' },
        { name: 'comfyui-workflow-templates', installed: null, required: '0.11.19' },
      ],
      python_version: '3.12.11 (main, Jun  4 2025, 08:56:18) [GCC 14.2.0]',
      pytorch_version: '2.8.0+cu128',
      embedded_python: false,
      deploy_environment: 'local-git',
      argv,
    },
    devices: [
      {
        name: STANDIN_DEVICE,
        type: 'cpu',
        index: null,
        vram_total: os.totalmem(),
        vram_free: os.freemem(),
        torch_vram_total: os.totalmem(),
        torch_vram_free: os.freemem(),
      },
    ],
  };
}

/** Python `int(x)` of a query value; invalid text throws (the engine answers 500). */
function pyIntParam(value: string | null): number | null {
  if (value === null) return null;
  if (!/^\s*[+-]?\d+\s*$/.test(value)) throw new TypeError(`invalid literal for int() with base 10: '${value}'`);
  return Number(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
