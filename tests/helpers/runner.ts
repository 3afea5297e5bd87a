/**
 * Runner helpers for integration tests: execute a workflow over HTTP the way the UI does
 * (multipart `params` + optional `input_image`), and wait for a job to reach a state.
 */
import fs from 'node:fs';
import path from 'node:path';
import { APP_ROOT } from '../../server/config.js';
import type { JobRecord } from '../../server/contracts/jobs.contract.js';
import { until } from './studio-ws.js';

/** A real 64×64 PNG shipped for the stand-in engine. */
export const SAMPLE_PNG = path.join(APP_ROOT, 'resources', 'standin', 'image.png');

type Api = (pathname: string, init?: RequestInit) => Promise<Response>;

export interface ExecuteOptions {
  params?: Record<string, unknown>;
  /** Send this file as `input_image`. */
  image?: { data: Buffer; name: string };
}

/** `POST /api/run/{id}/execute`; returns the raw response. */
export function executeRaw(api: Api, workflowId: string, options: ExecuteOptions = {}): Promise<Response> {
  const form = new FormData();
  form.append('params', JSON.stringify(options.params ?? {}));
  if (options.image) form.append('input_image', new Blob([new Uint8Array(options.image.data)], { type: 'image/png' }), options.image.name);
  return api(`/api/run/${encodeURIComponent(workflowId)}/execute`, { method: 'POST', body: form });
}

export interface ExecuteResult {
  prompt_id: string;
  client_id: string;
  seeds: Record<string, number>;
}

/** Execute and expect 200. */
export async function execute(api: Api, workflowId: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
  const res = await executeRaw(api, workflowId, options);
  const body = (await res.json()) as ExecuteResult & { detail?: unknown };
  if (res.status !== 200) throw new Error(`execute ${workflowId}: HTTP ${res.status}: ${JSON.stringify(body.detail)}`);
  return body;
}

/** Upload the sample PNG through `POST /api/run/upload-image`; returns the engine file name. */
export async function uploadSample(api: Api, name = 'photo.png'): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(fs.readFileSync(SAMPLE_PNG))], { type: 'image/png' }), name);
  const res = await api('/api/run/upload-image', { method: 'POST', body: form });
  const body = (await res.json()) as { filename?: string; detail?: unknown };
  if (res.status !== 200 || !body.filename) throw new Error(`upload: HTTP ${res.status}: ${JSON.stringify(body)}`);
  return body.filename;
}

export interface JobView {
  prompt_id: string;
  status: string;
  [key: string]: unknown;
}

/** The job record from the queue or the history, or undefined. */
export async function findJob(api: Api, promptId: string): Promise<JobView | undefined> {
  for (const route of ['/api/admin/queue', '/api/admin/history']) {
    const list = (await (await api(route)).json()) as JobView[];
    const hit = list.find((j) => j.prompt_id === promptId);
    if (hit) return hit;
  }
  return undefined;
}

/** Wait until the job's record has one of `statuses`; returns it. */
export async function waitForJob(api: Api, promptId: string, statuses: string[] = ['completed'], ms = 20_000): Promise<JobView> {
  return until(async () => {
    const job = await findJob(api, promptId);
    return job && statuses.includes(job.status) ? job : undefined;
  }, `job ${promptId} in ${statuses.join('|')}`, ms);
}

/** A job record to insert straight into the store (finished, nothing set but what `over` says). */
export function jobRecord(over: Partial<JobRecord> & Pick<JobRecord, 'prompt_id' | 'status'>): JobRecord {
  return {
    workflow_id: null,
    workflow_name: null,
    output_dir: null,
    queued_at: null,
    started_at: null,
    finished_at: null,
    duration: null,
    input_image: null,
    params: {},
    seeds: {},
    output: null,
    error: null,
    ...over,
  };
}

/**
 * Put (empty) model files where Studio points the engine, `STUDIO_DIR/models/<folder>/<file>`:
 * the stand-in, like the engine, refuses a loader choice its model folders do not hold.
 */
export function plantModels(studioDir: string, files: Record<string, readonly string[]>): void {
  for (const [folder, names] of Object.entries(files)) {
    for (const name of names) {
      const file = path.join(studioDir, 'models', folder, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'stand-in weights');
    }
  }
  forgetPlantedSizes(studioDir, new Set(Object.values(files).flat()));
}

/**
 * A few bytes where a catalog says gigabytes is an incomplete file, not the model: the planted
 * files' catalog entries (seeded from the shipped ones when Studio has not yet) get an unknown
 * size (0), which is never short. Studio reads its catalogs on first use, after the planting.
 */
function forgetPlantedSizes(studioDir: string, planted: ReadonlySet<string>): void {
  const dir = path.join(studioDir, 'catalogs');
  for (const name of ['models.json', 'loras.json']) {
    const target = path.join(dir, name);
    const source = fs.existsSync(target) ? target : path.join(APP_ROOT, 'resources', 'catalogs', name);
    const catalog = JSON.parse(fs.readFileSync(source, 'utf8')) as { categories: Array<{ models: Array<{ file: string; size_gb: number }> }> };
    const entries = catalog.categories.flatMap((c) => c.models).filter((entry) => planted.has(entry.file));
    if (entries.length === 0) continue;
    for (const entry of entries) entry.size_gb = 0;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(`${target}.tmp`, JSON.stringify(catalog, null, 2));
    fs.renameSync(`${target}.tmp`, target);
  }
}

/** The model files of the shipped workflows, by engine model folder. */
export const SHIPPED_MODELS = {
  checkpoints: ['sd_xl_base_1.0.safetensors'],
  upscale_models: ['RealESRGAN_x4plus.pth'],
  text_encoders: ['umt5_xxl_fp8_e4m3fn_scaled.safetensors'],
  diffusion_models: ['wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors'],
  vae: ['wan_2.1_vae.safetensors'],
  clip_vision: ['clip_vision_h.safetensors'],
} as const;
