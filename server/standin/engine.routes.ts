/**
 * The engine's JSON routes: system stats, features, object_info, prompt, queue, history,
 * interrupt, and the small listing routes clients probe. Parsing only; the logic lives in
 * StandinService and the stores.
 */
import os from 'node:os';
import { MAX_UPLOAD_BYTES, orderedObjectJson, readJson, sendEmpty, sendJson, sendText, type Route } from './http.util.js';
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
export function engineRoutes(deps: EngineRouteDeps): Route[] {
  const { service, catalog } = deps;
  return [
    { method: 'GET', path: /^\/$/, handler: ({ res }) => sendText(res, 200, 'Stand-in engine (ComfyUI protocol, no GPU)\n') },
    { method: 'GET', path: /^\/system_stats$/, handler: ({ res }) => sendJson(res, 200, systemStats(deps.argv())) },
    { method: 'GET', path: /^\/features$/, handler: ({ res }) => sendJson(res, 200, serverFeatures()) },
    { method: 'GET', path: /^\/object_info$/, handler: ({ res }) => sendJson(res, 200, catalog.listing(), true) },
    {
      method: 'GET',
      path: /^\/object_info\/(.+)$/,
      handler: ({ res, params }) => sendJson(res, 200, catalog.single(params[0] ?? ''), true),
    },
    { method: 'GET', path: /^\/prompt$/, handler: ({ res }) => sendJson(res, 200, { exec_info: { queue_remaining: service.queue.remaining() } }) },
    {
      method: 'POST',
      path: /^\/prompt$/,
      handler: async ({ req, res }) => {
        const body = await readJson(req);
        // A JSON list has no "prompt" key (400 no_prompt); a bare string or number crashes the engine (500).
        if (typeof body !== 'object' || body === null) throw new TypeError('argument of type is not iterable');
        const result = service.submit(Array.isArray(body) ? {} : (body as Record<string, unknown>));
        sendJson(res, result.status, result.body);
      },
    },
    { method: 'GET', path: /^\/queue$/, handler: ({ res }) => sendJson(res, 200, service.queue.snapshot()) },
    {
      method: 'POST',
      path: /^\/queue$/,
      handler: async ({ req, res }) => {
        const body = asRecord(await readJson(req));
        if (Object.hasOwn(body, 'clear') && body.clear) service.clearQueue();
        if (Array.isArray(body.delete)) service.deleteQueued(body.delete.map(String));
        sendEmpty(res, 200);
      },
    },
    {
      method: 'POST',
      path: /^\/interrupt$/,
      handler: async ({ req, res }) => {
        const body = await readJson(req).catch(() => ({}));
        const promptId = asRecord(body).prompt_id;
        service.interrupt(typeof promptId === 'string' && promptId !== '' ? promptId : null);
        sendEmpty(res, 200);
      },
    },
    {
      method: 'GET',
      path: /^\/history$/,
      handler: ({ res, url }) => {
        const maxItems = pyIntParam(url.searchParams.get('max_items'));
        const offset = pyIntParam(url.searchParams.get('offset'));
        sendJson(res, 200, orderedObjectJson(service.history.list(maxItems, offset)), true);
      },
    },
    { method: 'GET', path: /^\/history\/(.+)$/, handler: ({ res, params }) => sendJson(res, 200, service.history.one(params[0] ?? '')) },
    {
      method: 'POST',
      path: /^\/history$/,
      handler: async ({ req, res }) => {
        const body = asRecord(await readJson(req));
        if (Object.hasOwn(body, 'clear') && body.clear) service.history.clear();
        if (Array.isArray(body.delete)) for (const id of body.delete) service.history.delete(String(id));
        sendEmpty(res, 200);
      },
    },
    {
      method: 'POST',
      path: /^\/free$/,
      handler: async ({ req, res }) => {
        await readJson(req).catch(() => null);
        sendEmpty(res, 200);
      },
    },
    { method: 'GET', path: /^\/embeddings$/, handler: ({ res }) => sendJson(res, 200, []) },
    { method: 'GET', path: /^\/extensions$/, handler: ({ res }) => sendJson(res, 200, []) },
    { method: 'GET', path: /^\/models$/, handler: ({ res }) => sendJson(res, 200, MODEL_FOLDERS) },
    {
      method: 'GET',
      path: /^\/models\/([^/]+)$/,
      handler: ({ res, params }) => {
        const folder = params[0] ?? '';
        if (!MODEL_FOLDERS.includes(folder)) return sendEmpty(res, 404);
        sendJson(res, 200, deps.files(folder) ?? []);
      },
    },
  ];
}

/** Fake GPU box numbers in the engine's shape (bytes everywhere). */
function systemStats(argv: string[]): Record<string, unknown> {
  const vramTotal = 25_757_220_864;
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
        name: 'cuda:0 NVIDIA GeForce RTX 4090 (stand-in) : cudaMallocAsync',
        type: 'cuda',
        index: 0,
        vram_total: vramTotal,
        vram_free: vramTotal - 1_288_490_188,
        torch_vram_total: 0,
        torch_vram_free: 0,
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
