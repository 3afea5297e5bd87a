/**
 * The main Studio's side of an agent's model download: an agent of the pool lacks a model file
 * this Studio's catalog has; this Studio sends the file name and its catalog's SHA-256 to the
 * agent (`agent-models.routes.ts`), which downloads it through its own queue and verifies it. A
 * ComfyUI by URL cannot be asked (it has no download queue), nor can an agent that is offline.
 */
import { DomainError, type ErrorKind } from '../../domain-error.js';
import type { EnginePool } from './engine-pool.js';
import { AGENT_MODELS_PATH } from './agent-models.routes.js';

/** One request to an agent waits at most this long (it only queues the download). */
const AGENT_REQUEST_TIMEOUT_MS = 15_000;

/** The agent's statuses that keep their meaning here; others mean the agent failed us (502). */
const RELAYED: Record<number, ErrorKind> = { 400: 'invalid', 404: 'not_found', 409: 'conflict' };

/**
 * Ask agent `engineId` to download catalog file `filename`; `sha256Of` is this Studio's catalog.
 * Resolves with the agent's answer (`{status, file}`: queued, downloading or present).
 */
export async function downloadOnAgent(pool: EnginePool, engineId: string, filename: string, sha256Of: (file: string) => string | null | undefined): Promise<{ status: string; file: string }> {
  const engine = pool.get(engineId);
  if (!engine) throw new DomainError('not_found', `Engine not found: ${engineId}`);
  if (!engine.agent) throw new DomainError('conflict', `Engine ${engine.name} is not a Studio agent: only an agent can be asked to download a model`);
  const sha256 = sha256Of(filename);
  if (sha256 === undefined) throw new DomainError('not_found', `Not in this Studio's models or LoRA catalog: ${filename}`);
  if (sha256 === null) throw new DomainError('conflict', `This Studio's catalog records no SHA-256 for ${filename}: the agent could not verify it`);
  if (engine.status !== 'online') throw new DomainError('unavailable', `Agent ${engine.name} is ${engine.status}: it cannot be asked now`);
  let res: Response;
  try {
    res = await fetch(`${engine.agent.url}${AGENT_MODELS_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': engine.agent.key },
      body: JSON.stringify({ filename, sha256 }),
      signal: AbortSignal.timeout(AGENT_REQUEST_TIMEOUT_MS),
      // The key goes to the agent only: a redirect would carry it wherever it points.
      redirect: 'manual',
    });
  } catch (err) {
    throw new DomainError('bad_gateway', `Agent ${engine.name} did not answer: ${(err as Error).message}`);
  }
  if (res.status >= 300 && res.status < 400) throw new DomainError('bad_gateway', `Agent ${engine.name} answered with a redirect (HTTP ${res.status}); Studio does not follow it with the agent's key`);
  const body = (await res.json().catch(() => ({}))) as { status?: string; file?: string; detail?: string };
  if (res.ok && typeof body.status === 'string') return { status: body.status, file: body.file ?? filename };
  const detail = `Agent ${engine.name}: ${body.detail ?? `HTTP ${res.status}`}`;
  throw new DomainError(RELAYED[res.status] ?? 'bad_gateway', detail);
}
