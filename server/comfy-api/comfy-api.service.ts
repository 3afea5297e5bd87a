/**
 * The engine's own API over Studio's queue and pool (issue 44): a prompt a client sends is a Studio
 * job under the client's prompt id (the person's limits, fair share, failover, history all apply),
 * and the queue and history answers are the engine's shapes built from Studio's jobs and the door's
 * own rows (`comfy_prompts`). Knows nothing of HTTP: a refusal the engine would answer with its
 * own 400 body is a `ComfyRefusal`, which the routes send as is.
 */
import crypto from 'node:crypto';
import { DomainError, isKind } from '../domain-error.js';
import { EngineValidationError } from '../engine/engine-errors.js';
import type { ApiGraph, ObjectInfo } from '../engine/engine-graph.js';
import type { HistoryEntry } from '../engine/engine-protocol.js';
import { mayTouch, seesEveryone, type Actor } from '../http/actor.js';
import { OWNER_ID } from '../contracts/users.contract.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { ComfyPrompt, ComfyPromptStore } from './comfy-prompts.store.js';
import { outputNodesOf, unionObjectInfo } from './pool-nodes.js';
import { validatePrompt } from '../engine/prompt-rules/validator.js';
import type { NodeInfo } from '../engine/prompt-rules/node-inputs.js';

/** The workflow id a person's allow-list must name for them to submit through the door. */
const COMFY_API_WORKFLOW = 'comfy-api';
/** The name the history shows for a prompt that came through the door. */
const JOB_NAME = 'ComfyUI API';
/** `extra_data` keys the engine treats as secret: never stored nor shown. */
const SECRET_EXTRA = ['auth_token_comfy_org', 'api_key_comfy_org'];
/** How long a history answer waits for an engine's own history. */
const ENGINE_HISTORY_WAIT_MS = 3_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The engine's 400 body for a prompt it refuses. */
export class ComfyRefusal extends Error {
  constructor(readonly body: { error: { type: string; message: string; details: string; extra_info: Record<string, unknown> }; node_errors: Record<string, unknown> }) {
    super(body.error.message);
  }
}

const refusal = (type: string, message: string, details = '') => new ComfyRefusal({ error: { type, message, details, extra_info: {} }, node_errors: {} });

export interface ComfyApiDeps {
  store: ComfyPromptStore;
  runGraph: (graph: ApiGraph, run: { promptId: string; workflowId: string; name: string; extraData: Record<string, unknown>; retryOf?: string }, origin: { submitter: string; ownerId: string; actor: Actor; countsFor?: string }) => Promise<unknown>;
  job: (promptId: string) => JobRecord | null;
  cancel: (promptId: string, actor: Actor) => Promise<unknown>;
  /** The node lists of the pool's engines that answer. */
  objectInfos: () => Promise<ObjectInfo[]>;
  /** The engine's own history entry of a job (where it ran), when the door saw none of its outputs. */
  engineHistory: (job: JobRecord) => Promise<HistoryEntry | null>;
  /** The final files in a job's folder, as the engine names outputs (subfolder under its output folder). */
  folderOutputs: (job: JobRecord) => Array<{ filename: string; subfolder: string }>;
}

export interface SubmitBody {
  prompt?: unknown;
  prompt_id?: unknown;
  client_id?: unknown;
  extra_data?: unknown;
  front?: unknown;
  number?: unknown;
}

type QueueItem = [number, string, ApiGraph, Record<string, unknown>, string[]];

export class ComfyApiService {
  constructor(private readonly deps: ComfyApiDeps) {}

  /** `POST /prompt`. */
  async submit(body: SubmitBody, actor: Actor, submitter: string): Promise<{ prompt_id: string; number: number; node_errors: Record<string, unknown> }> {
    const graph = body.prompt;
    if (graph === null || typeof graph !== 'object' || Array.isArray(graph)) throw refusal('no_prompt', 'No prompt provided');
    let promptId: string = crypto.randomUUID();
    if (body.prompt_id !== undefined && body.prompt_id !== null) {
      if (typeof body.prompt_id !== 'string' || !UUID.test(body.prompt_id)) throw refusal('invalid_prompt_id', 'Invalid prompt_id', 'prompt_id must be a lowercase, hyphenated UUID');
      // Studio keeps every job: an id already used is refused rather than overwriting the old record.
      if (this.deps.store.has(body.prompt_id) || this.deps.job(body.prompt_id)) throw refusal('invalid_prompt_id', 'Invalid prompt_id', 'this prompt_id was already used');
      promptId = body.prompt_id;
    }
    const number = typeof body.number === 'number' && Number.isFinite(body.number) ? body.number : body.front === true ? -(this.deps.store.lastNumber() + 1) : this.deps.store.lastNumber() + 1;
    const extra = typeof body.extra_data === 'object' && body.extra_data !== null ? { ...(body.extra_data as Record<string, unknown>) } : {};
    for (const key of [...SECRET_EXTRA, 'client_id']) delete extra[key];
    const clientId = typeof body.client_id === 'string' && body.client_id !== '' ? body.client_id : null;
    const infos = await this.deps.objectInfos().catch(() => []);
    // What the engine answers with its 200: the output nodes that validated, and the others' errors
    // (Studio's pre-check below refuses only a graph with no valid output; input files it checks itself).
    const partial = partialCheck(graph as ApiGraph, unionObjectInfo(infos));
    // The row exists before the job is queued: the engine's first message of it finds its client.
    this.deps.store.add({ prompt_id: promptId, client_id: clientId, owner_id: actor.userId, number, prompt: graph as ApiGraph, extra_data: { ...extra, ...(clientId ? { client_id: clientId } : {}) }, output_ids: partial.outputs, created_ms: Date.now() });
    try {
      await this.deps.runGraph(graph as ApiGraph, { promptId, workflowId: COMFY_API_WORKFLOW, name: JOB_NAME, extraData: pickEngineExtra(extra) }, { submitter, ownerId: actor.userId, actor, countsFor: actor.userId === OWNER_ID ? undefined : actor.userId });
    } catch (err) {
      this.deps.store.remove(promptId);
      if (err instanceof EngineValidationError) throw new ComfyRefusal({ error: { type: err.engineBody.error.type, message: err.engineBody.error.message, details: err.engineBody.error.details ?? '', extra_info: err.engineBody.error.extra_info ?? {} }, node_errors: err.engineBody.node_errors });
      throw err;
    }
    return { prompt_id: promptId, number, node_errors: partial.nodeErrors };
  }

  /**
   * A prompt a Studio restart stalled (waiting in Studio's queue, or on the engine restarted with
   * it) runs again as a new job; the client keeps its own id, and Studio's history links the two
   * (`retry_of`). Studio's own resubmission: it counts against nobody's quotas.
   */
  async resubmit(prompt: ComfyPrompt, actor: Actor): Promise<string> {
    const jobId = crypto.randomUUID();
    this.deps.store.rebind(prompt.prompt_id, jobId);
    try {
      await this.deps.runGraph(prompt.prompt, { promptId: jobId, workflowId: COMFY_API_WORKFLOW, name: JOB_NAME, extraData: pickEngineExtra(prompt.extra_data), retryOf: prompt.job_id }, { submitter: `comfy:${prompt.client_id ?? prompt.owner_id}`, ownerId: prompt.owner_id, actor });
    } catch (err) {
      this.deps.store.rebind(prompt.prompt_id, prompt.job_id);
      throw err;
    }
    return jobId;
  }

  /**
   * `GET /prompt` and the socket's `status`: the prompts of one client (else of the caller) that
   * wait or run. Each client sees Studio as an engine of its own, so a client library's pool of
   * connections to Studio (which waits for an idle one) is not held up by other clients' jobs;
   * spreading them over the engines is Studio's pool's work.
   */
  status(actor: Actor, clientId?: string | null): { exec_info: { queue_remaining: number } } {
    const mine = this.visible(actor).filter((p) => !clientId || p.client_id === clientId);
    return { exec_info: { queue_remaining: mine.filter((p) => !isFinished(this.deps.job(p.job_id))).length } };
  }

  /** `GET /queue`: the caller's door prompts that wait (in Studio or on an engine) or run. */
  queue(actor: Actor): { queue_running: QueueItem[]; queue_pending: QueueItem[] } {
    const running: QueueItem[] = [];
    const pending: QueueItem[] = [];
    for (const prompt of this.visible(actor)) {
      const status = this.deps.job(prompt.job_id)?.status;
      if (status === 'running') running.push(itemOf(prompt));
      else if (status === 'queued') pending.push(itemOf(prompt));
    }
    return { queue_running: running, queue_pending: pending };
  }

  /** `POST /queue`: `delete` takes the named waiting prompts off; `clear` every waiting one of the caller's. */
  async manageQueue(body: { delete?: unknown; clear?: unknown }, actor: Actor): Promise<void> {
    const waiting = new Set(this.queue(actor).queue_pending.map((item) => item[1]));
    const ids = body.clear === true ? [...waiting] : Array.isArray(body.delete) ? body.delete.filter((id): id is string => typeof id === 'string' && waiting.has(id)) : [];
    for (const id of ids) await this.cancelQuietly(id, actor);
  }

  /** `POST /interrupt`: the named prompt if it runs; without one, every running prompt of the caller's. */
  async interrupt(promptId: unknown, actor: Actor): Promise<void> {
    const running = this.queue(actor).queue_running.map((item) => item[1]);
    const ids = typeof promptId === 'string' ? running.filter((id) => id === promptId) : running;
    for (const id of ids) await this.cancelQuietly(id, actor);
  }

  /** `GET /history`: finished prompts, oldest first; `max_items` alone keeps the newest. */
  async history(actor: Actor, maxItems?: number, offset?: number): Promise<Record<string, unknown>> {
    let done = this.visible(actor).filter((p) => !p.hidden && isFinished(this.deps.job(p.job_id)));
    if (offset !== undefined) done = done.slice(offset, maxItems === undefined ? undefined : offset + maxItems);
    else if (maxItems !== undefined) done = done.slice(Math.max(0, done.length - maxItems));
    const out: Record<string, unknown> = {};
    // A long list does not wait on engines for each entry (`/history/{id}` asks them).
    for (const prompt of done) out[prompt.prompt_id] = await this.entryOf(prompt, false);
    return out;
  }

  /** `GET /history/{id}`: `{}` while it waits or runs, or for an id that is not the caller's (as the engine). */
  async historyOf(promptId: string, actor: Actor): Promise<Record<string, unknown>> {
    const prompt = this.deps.store.get(promptId);
    if (!prompt || prompt.hidden || !mayTouch(actor, prompt.owner_id) || !isFinished(this.deps.job(prompt.job_id))) return {};
    return { [promptId]: await this.entryOf(prompt) };
  }

  /** `POST /history`: hides entries from this API's history (the Studio jobs and their outputs stay). */
  clearHistory(body: { delete?: unknown; clear?: unknown }, actor: Actor): void {
    const mine = this.visible(actor).filter((p) => isFinished(this.deps.job(p.job_id)));
    const named = Array.isArray(body.delete) ? new Set(body.delete.filter((id) => typeof id === 'string')) : new Set<unknown>();
    this.deps.store.hide(mine.filter((p) => body.clear === true || named.has(p.prompt_id)).map((p) => p.prompt_id));
  }

  /** The engine's history entry of a finished prompt, from the outputs the door saw (else the engine's own). */
  async entryOf(prompt: ComfyPrompt, askEngine = true): Promise<Record<string, unknown>> {
    const job = this.deps.job(prompt.job_id)!;
    let outputs = prompt.outputs;
    // Outputs the door did not see (the job ran while Studio was down): the files in the job's
    // folder for its one output node, else the engine's own history (asked briefly: an engine
    // that is starting must not hold the answer up).
    if (Object.keys(outputs).length === 0 && job.status === 'completed' && prompt.output_ids.length === 1) {
      const images = this.deps.folderOutputs(job);
      if (images.length) outputs = { [prompt.output_ids[0]!]: { images: images.map((f) => ({ ...f, type: 'output' })) } };
    }
    if (askEngine && Object.keys(outputs).length === 0 && job.status === 'completed') {
      const timeout = new Promise<null>((resolve) => setTimeout(resolve, ENGINE_HISTORY_WAIT_MS, null).unref());
      outputs = (await Promise.race([this.deps.engineHistory(job).catch(() => null), timeout]))?.outputs ?? {};
    }
    const ok = job.status === 'completed';
    const at = (stamp: string | null) => (stamp ? Date.parse(stamp) || Date.now() : Date.now());
    const messages: Array<[string, Record<string, unknown>]> = [['execution_start', { prompt_id: prompt.prompt_id, timestamp: at(job.started_at) }]];
    messages.push(finalMessage(job, prompt.prompt_id, at(job.finished_at)));
    return { prompt: itemOf(prompt), outputs, status: { status_str: ok ? 'success' : 'error', completed: ok, messages }, meta: {} };
  }

  /** The caller's door prompts (everyone's for the owner and admins), oldest first. */
  visible(actor: Actor): ComfyPrompt[] {
    return this.deps.store.list(seesEveryone(actor) ? null : actor.userId);
  }

  /** Cancel the job that runs the prompt `id` (the client's id). */
  private async cancelQuietly(id: string, actor: Actor): Promise<void> {
    try {
      await this.deps.cancel(this.deps.store.get(id)?.job_id ?? id, actor);
    } catch (err) {
      // Finished meanwhile: the engine answers 200 all the same.
      if (!isKind(err, 'not_found') && !isKind(err, 'invalid') && !isKind(err, 'conflict')) throw err;
    }
  }
}

/** The message that ended a finished job, as the engine words it. */
export function finalMessage(job: JobRecord, promptId: string, timestamp: number): [string, Record<string, unknown>] {
  if (job.status === 'completed') return ['execution_success', { prompt_id: promptId, timestamp }];
  if (job.status === 'cancelled') return ['execution_interrupted', { prompt_id: promptId, node_id: null, node_type: null, executed: [], timestamp }];
  return ['execution_error', { prompt_id: promptId, node_id: null, node_type: null, executed: [], exception_message: job.error ?? 'The job did not finish', exception_type: 'StudioJobError', traceback: [], current_inputs: {}, current_outputs: {}, timestamp }];
}

export function isFinished(job: JobRecord | null): job is JobRecord {
  return job !== null && job.status !== 'queued' && job.status !== 'running';
}

/** The engine's own validation over the pool's nodes: valid outputs and the per-node errors of the rest. */
function partialCheck(graph: ApiGraph, info: ObjectInfo): { outputs: string[]; nodeErrors: Record<string, unknown> } {
  const get = (classType: string) => (Object.hasOwn(info, classType) ? (info[classType] as unknown as NodeInfo) : undefined);
  try {
    const result = validatePrompt(graph, { catalog: { get, live: get, checksFileLists: true }, fileExists: () => true });
    if (result.ok) return { outputs: result.outputs, nodeErrors: result.nodeErrors };
  } catch {
    // Not a graph the rules can read: the runner's check answers for it.
  }
  return { outputs: outputNodesOf(graph, info), nodeErrors: {} };
}

function itemOf(prompt: ComfyPrompt): QueueItem {
  return [prompt.number, prompt.prompt_id, prompt.prompt, prompt.extra_data, prompt.output_ids];
}

/** What of the client's extra data goes on to the engine: what the engine reads, no more. */
function pickEngineExtra(extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof extra.preview_method === 'string') out.preview_method = extra.preview_method;
  if (typeof extra.extra_pnginfo === 'object' && extra.extra_pnginfo !== null && Object.keys(extra.extra_pnginfo).length) out.extra_pnginfo = extra.extra_pnginfo;
  return out;
}

/** A door that is off answers as a route that does not exist. */
export function assertOn(enabled: boolean): void {
  if (!enabled) throw new DomainError('not_found', 'The engine API is off (turn it on in System, or set COMFY_API=on)');
}
