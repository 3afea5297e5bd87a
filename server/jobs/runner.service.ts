/**
 * The runner (spec "Workflow execution"): uploads the input image, resolves seeds, builds the
 * graph, points every output into the job's folder, validates it as the engine would, records the
 * job and puts it in Studio's queue (which hands it to an engine). Retry re-runs a recorded job with the same parameters and seeds.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { DomainError, isKind } from '../domain-error.js';
import type { EngineClient } from '../engine/engine.client.js';
import { refusedRun } from './refusal-words.js';
import type { EngineValidationBody } from '../engine/engine-protocol.js';
import { precheckPrompt, type InputFileProbe } from '../engine/prompt-precheck.js';
import { missingFor } from '../engine/pool/engine-needs.js';
import type { EventBus } from '../events/event-bus.js';
import type { UploadedFile } from '../http/uploads.js';
import type { Logger } from '../logging.js';
import type { PreviewMethod } from '../config.js';
import { prepareRun, renameInputImage } from '../workflows/graph-builder.js';
import { redirectOutputs } from '../workflows/output-redirect.js';
import type { ApiGraph, ObjectInfo } from '../engine/engine-graph.js';
import { EXISTING_INPUT_IMAGE_KEY } from '../workflows/params.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import { JobFolders, newJobFolderName } from './job-folders.store.js';
import { engineExtraData, firstObjectInfo, imageParam, queuedJob, stringOrNull, studioInputs, uniqueUploadName } from './runner-helpers.js';
import type { JobLifecycle } from './job-lifecycle.js';
import type { ExecuteResult, JobRecord } from '../contracts/jobs.contract.js';
import type { JobStore } from './job.store.js';
import { mayTouch, OWNER_ACTOR, type Actor } from '../http/actor.js';
import { OWNER_ID } from '../contracts/users.contract.js';
import type { RunLimits } from './run-limits.js';
import type { PoolEngine } from '../engine/pool/pool-engine.js';
import type { InputCopies } from './input-copies.js';
import type { JobQueueService } from './queue/job-queue.service.js';
import type { QueueEntry } from './queue/queue.store.js';

/** Where a job came from, recorded on it: a retried job, a preset run. */
export interface JobOrigin {
  retryOf?: string;
  presetId?: string;
  /** Who queued it, for fair share (`http/submitter.ts`); a retry keeps the caller's. */
  submitter?: string;
  /** The person the job belongs to (default: the owner of Studio). */
  ownerId?: string;
  /** Who asks, when a person does: an input file of someone they may not see is, to the run, missing. */
  actor?: Actor;
  /** The person whose allow-lists and quotas the run is checked against (none: Studio's own resubmission). */
  countsFor?: string;
  /** The batch the job is a cell of: it waits in the queue's batch lane. */
  batchId?: string;
}

/** A graph sent through the engine's own API: its id, the name the history shows, the client's extra data. */
export interface GraphRun {
  promptId: string;
  /** Checked against a person's workflow allow-list (the door's own id). */
  workflowId: string;
  name: string;
  /** The client's `extra_data` (its `extra_pnginfo` wins over Studio's). */
  extraData: Record<string, unknown>;
  retryOf?: string; // the job this one runs again (a prompt a restart stalled)
}

/** Studio's queue, as the runner sees it. */
type JobQueueing = Pick<JobQueueService, 'enqueue'>;

type PersonChecks = ReturnType<RunLimits['of']>;

/** The engine(s) a request's graph is checked against, and their `object_info`. */
interface RunTarget {
  local: boolean;
  others: OtherEngine[];
  objectInfo: ObjectInfo | undefined;
}

export interface RunnerDeps {
  /** Sent as `extra_data.preview_method`: a real engine sends sampler previews only when asked. */
  previewMethod: PreviewMethod;
  /**
   * Studio's copies of inputs: one kept when the engine's input folder is its own, one removed for
   * a prompt the engine then refused; with this computer's engine down and another engine of the
   * pool up, an upload goes there (the engine that takes the job gets it at hand-over) and the
   * check of a graph's input files asks that folder.
   */
  inputs: Pick<InputCopies, 'keep' | 'store' | 'remove' | 'has'>;
  workflows: WorkflowService;
  /** Records who uploaded an input (members see only their own inputs). */
  inputOwner?: (storedName: string, ownerId: string) => void;
  /** Who uploaded an input (the owner of Studio for one nobody recorded). */
  inputOwnerOf?: (storedName: string) => string;
  engine: EngineClient;
  clientId: string;
  jobs: JobStore;
  /** The one writer of job status: records the job and announces it. */
  lifecycle: JobLifecycle;
  folders: JobFolders;
  /** Studio's queue: where a validated job waits for an engine. */
  queue: JobQueueing;
  /** The pool's other engines (a job this engine cannot run may run on one of them; one that does not answer says so). */
  otherEngines: () => ReadonlyArray<OtherEngine>;
  /**
   * This computer's engine answers now (not only "not known down": after a restart it is `starting`
   * for a second or more, and an upload to it then fails). Resolves true once it does, within `ms`.
   */
  localEngine: { status(): string; waitUp(ms: number): Promise<boolean> };
  /** Each person's allow-lists and quotas. */
  limits: RunLimits;
  /** This computer's engine is the stand-in: it runs a graph whose model files are missing (with a test card). */
  standin: () => boolean;
  events: EventBus;
  logger: Logger;
  /** Records what the job runs on (its lock), once it is accepted. */
  recordLock?: (job: JobRecord, graph: ApiGraph) => void;
}

/** Another engine of the pool, as the runner checks a graph against it. */
type OtherEngine = Pick<PoolEngine, 'id' | 'name' | 'status' | 'objectInfo'>;

/** How long a request waits for this computer's engine while it starts and no other engine answers. */
const LOCAL_START_WAIT_MS = 20_000;

export class RunnerService {
  constructor(private readonly deps: RunnerDeps) {}

  /**
   * Whether a request goes to this computer's engine: yes when it answers; no while it does not
   * and another engine does (that one takes the job: Studio keeps the input until the hand-over);
   * while it is still starting and nobody else answers, after waiting for it (bounded). A request
   * never fails because this engine is starting while another could take the job.
   */
  private async useLocal(): Promise<boolean> {
    const status = this.deps.localEngine.status();
    if (status === 'online') return true;
    if (this.deps.otherEngines().some((e) => e.status === 'online')) return false;
    if (status === 'starting') await this.deps.localEngine.waitUp(LOCAL_START_WAIT_MS);
    return this.deps.engine.isAvailable();
  }

  /** Store an image in the engine's input directory under a unique name; returns that name. */
  async uploadImage(file: UploadedFile, ownerId: string = OWNER_ID): Promise<string> {
    // This computer's engine down, another up: Studio keeps it (the engine that runs a job gets it then).
    const local = (await this.useLocal()) || !this.deps.otherEngines().some((e) => e.status === 'online');
    const stored = await this.storeImage(file, uniqueUploadName(file.originalname), local);
    this.deps.inputOwner?.(stored, ownerId);
    return stored;
  }

  private async storeImage(file: UploadedFile, name: string, local = true): Promise<string> {
    if (!local) {
      await this.deps.inputs.store(file.path, name);
      return name;
    }
    try {
      // Streamed from the temporary file: an upload is never held in memory whole.
      const stored = await this.deps.engine.uploadImage(await fs.openAsBlob(file.path), name);
      const storedName = stored.subfolder ? `${stored.subfolder}/${stored.name}` : stored.name;
      await this.deps.inputs.keep(file.path, storedName).catch((err: unknown) => this.deps.logger.warn(`no local copy of input ${storedName}`, err));
      return storedName;
    } catch (err) {
      // An engine known to be down says so itself (503), not as a failed upload.
      if (isKind(err, 'unavailable')) throw err;
      this.deps.logger.error('image upload to the engine failed', err);
      throw new DomainError('failed', `Upload failed: ${(err as Error).message}`);
    }
  }

  /** A `not_found` for a workflow that does not exist (routes look it up before judging a form). */
  async assertWorkflow(workflowId: string): Promise<void> {
    await this.deps.workflows.definition(workflowId);
  }

  /** `POST /api/run/{id}/execute`. */
  async execute(workflowId: string, params: Record<string, unknown>, image?: UploadedFile, origin: JobOrigin = {}): Promise<ExecuteResult> {
    const definition = await this.deps.workflows.definition(workflowId);
    const limits = origin.countsFor === undefined ? undefined : this.deps.limits.of(origin.countsFor);
    // Refused before anything is built, uploaded or written (the quotas checked again just before the job is).
    limits?.checkWorkflow(workflowId);
    limits?.checkQuotas();
    const target = await this.target();
    const objectInfo = target.objectInfo;
    const promptId = crypto.randomUUID();
    const folder = newJobFolderName(workflowId);
    // Build (and so validate the parameters) before uploading: a 400 must not leave a stray input file.
    let uploadedImage = image ? uniqueUploadName(image.originalname) : undefined;
    let run = prepareRun(definition, params, folder, { uploadedImage, objectInfo });
    limits?.checkModels(run.graph);
    if (image && uploadedImage) {
      const stored = await this.storeImage(image, uploadedImage, target.local);
      this.deps.inputOwner?.(stored, origin.ownerId ?? OWNER_ID);
      if (stored !== uploadedImage) run = renameInputImage(run, uploadedImage, stored);
      uploadedImage = stored;
    }
    // The image came with this request only for this prompt: nothing is left behind for it.
    const dropImage = async () => {
      if (image && uploadedImage) await this.deps.inputs.remove(uploadedImage).catch(() => undefined);
    };
    try {
      await this.check(run.graph, target, origin.actor, true);
    } catch (err) {
      await dropImage();
      throw err;
    }
    const inputImage = uploadedImage ?? stringOrNull(params[EXISTING_INPUT_IMAGE_KEY]) ?? imageParam(definition.manifest.inputs, run.params);
    const job = queuedJob(promptId, folder, {
      workflow_id: workflowId,
      workflow_name: definition.manifest.name,
      input_image: inputImage,
      params: run.params,
      seeds: run.seeds,
      ...(origin.retryOf ? { retry_of: origin.retryOf } : {}),
      ...(origin.presetId ? { preset_id: origin.presetId } : {}),
    }, origin);
    const extraData = engineExtraData(run.graph, objectInfo, this.deps.previewMethod, this.deps.logger);
    await this.queueJob(job, limits, { submitter: origin.submitter ?? 'anonymous', graph: run.graph, extraData, batchId: origin.batchId }, dropImage);
    this.deps.recordLock?.(job, run.graph);
    return { prompt_id: promptId, client_id: this.deps.clientId, seeds: run.seeds };
  }

  /**
   * A graph in the engine's API format, as a client of the engine's own API sends it (issue 44):
   * checked against the person's limits and the pool like a workflow's, its outputs pointed into
   * a job folder, recorded as a job under the client's prompt id and queued. `name` is the
   * workflow name the history shows.
   */
  async executeGraph(graph: ApiGraph, run: GraphRun, origin: JobOrigin = {}): Promise<{ prompt_id: string; graph: ApiGraph }> {
    const limits = origin.countsFor === undefined ? undefined : this.deps.limits.of(origin.countsFor);
    limits?.checkWorkflow(run.workflowId);
    limits?.checkModels(graph);
    limits?.checkQuotas();
    const target = await this.target();
    // The engine's own validation first: a bad graph is its 400, before any folder or row exists.
    await this.check(graph, target, origin.actor, false);
    const folder = newJobFolderName(run.workflowId);
    const redirected = redirectOutputs(graph, folder, { objectInfo: target.objectInfo }).graph;
    const job = queuedJob(run.promptId, folder, { workflow_name: run.name, ...(run.retryOf ? { retry_of: run.retryOf } : {}) }, origin);
    const extraData = { ...engineExtraData(redirected, target.objectInfo, this.deps.previewMethod, this.deps.logger), ...run.extraData };
    await this.queueJob(job, limits, { submitter: origin.submitter ?? 'anonymous', graph: redirected, extraData });
    return { prompt_id: run.promptId, graph: redirected };
  }

  /**
   * Where a request's graph is checked and then goes: this computer's engine when it answers, else
   * the other engines of the pool that do (503 now when none does: nothing below could succeed).
   */
  private async target(): Promise<RunTarget> {
    const local = await this.useLocal();
    const others = local ? [] : this.deps.otherEngines().filter((e) => e.status === 'online');
    if (!local && others.length === 0) this.deps.engine.assertAvailable();
    const objectInfo = local ? await this.deps.workflows.objectInfo().catch(() => undefined) : await firstObjectInfo(others);
    return { local, others, objectInfo };
  }

  /**
   * `workflowRun`: a run of one of Studio's workflows, whose "not ready" banner promises that the
   * stand-in runs it anyway. So with the stand-in as the only engine a missing model file is no
   * refusal; a client of the engine's own API, and a pool (whose routing needs each engine's
   * truth), meet the engine's rules as they are.
   */
  private check(graph: ApiGraph, target: RunTarget, actor: Actor | undefined, workflowRun: boolean): Promise<void> {
    const lenient = workflowRun && this.deps.standin() && this.deps.otherEngines().length === 0;
    return target.local ? this.precheck(graph, target.objectInfo, actor, !lenient) : this.precheckElsewhere(graph, target.others, actor);
  }

  /**
   * Records the job and puts it in Studio's queue, which hands it to an engine when one has room,
   * with its prompt id as the engine's. The quotas are checked again with no wait between them and
   * the row, so two requests at once cannot both take the last slot (`refused` cleans up then).
   */
  private async queueJob(job: JobRecord, limits: PersonChecks | undefined, entry: QueueEntry, refused?: () => Promise<void>): Promise<void> {
    try {
      limits?.checkQuotas();
    } catch (err) {
      await refused?.();
      throw err;
    }
    const folder = job.output_dir!;
    this.deps.folders.create(folder);
    try {
      await this.deps.lifecycle.submit(job, async () => this.deps.queue.enqueue(job.prompt_id, entry));
    } catch (err) {
      this.deps.folders.remove(folder);
      throw err;
    }
  }

  /** The engine's input files as `actor` may use them: another person's is missing. */
  private inputsFor(probe: InputFileProbe, actor: Actor | undefined): InputFileProbe {
    const ownerOf = this.deps.inputOwnerOf;
    if (!actor || !ownerOf) return probe;
    return {
      viewStream: async (req) => {
        const name = req.subfolder ? `${req.subfolder}/${req.filename}` : req.filename;
        if (req.type === 'input' && !mayTouch(actor, ownerOf(name))) return { status: 404, body: { destroy: () => undefined } };
        return probe.viewStream(req);
      },
    };
  }

  /**
   * The engine's validation, at once (a queued job may wait long before an engine takes it): a bad
   * graph is a 400 with the engine's node errors. A refusal is checked again against a fresh
   * `object_info`, so a model added a moment ago is not refused from a stale list.
   */
  private async precheck(graph: ApiGraph, objectInfo: ObjectInfo | undefined, actor: Actor | undefined, checksFileLists: boolean): Promise<void> {
    if (!objectInfo) {
      // Unreachable engine: the same error a submit would have met.
      await this.deps.workflows.objectInfo();
      return;
    }
    const engineInputs = this.inputsFor(this.deps.engine, actor);
    let refused = await precheckPrompt(graph, objectInfo, engineInputs, checksFileLists);
    if (!refused) return;
    this.deps.workflows.invalidateNodes();
    const fresh = await this.deps.workflows.objectInfo();
    refused = await precheckPrompt(graph, fresh, engineInputs, checksFileLists);
    if (!refused) return;
    const others = this.deps.otherEngines();
    if (others.length === 0) throw refusedRun(refused);
    // Another engine of the pool may have what this one lacks (input files are Studio's: asked of this engine).
    const lacks = [`this computer lacks ${missingFor(graph, fresh).join(', ') || 'nothing it names (see the node errors)'}`];
    for (const other of others) {
      const info = await other.objectInfo();
      if (info && !(await precheckPrompt(graph, info, engineInputs))) return;
      lacks.push(info ? `${other.name} (${other.id}) lacks ${missingFor(graph, info).join(', ') || 'nothing it names'}` : `${other.name} (${other.id}) did not say what it has`);
    }
    throw refusedRun({ ...refused, error: { ...refused.error, message: 'No engine can run this job', details: lacks.join('; ') } }, `No engine can run it: ${lacks.join('; ')}.`);
  }

  /**
   * The check when this computer's engine is down: the graph must pass on one of the other
   * engines that answer (their own `object_info`; input files are Studio's, uploaded at hand-over).
   */
  private async precheckElsewhere(graph: ApiGraph, others: readonly OtherEngine[], actor?: Actor): Promise<void> {
    const inputs = this.inputsFor(studioInputs((name) => this.deps.inputs.has(name)), actor);
    const lacks = ['this computer does not answer'];
    let refused: EngineValidationBody | null = null;
    for (const other of others) {
      const info = await other.objectInfo();
      const refusal = info ? await precheckPrompt(graph, info, inputs) : null;
      if (info && !refusal) return;
      refused ??= refusal;
      lacks.push(info ? `${other.name} (${other.id}) lacks ${missingFor(graph, info).join(', ') || 'nothing it names (see the node errors)'}` : `${other.name} (${other.id}) did not say what it has`);
    }
    // None of them said what it has: as unreachable as this computer's engine (503).
    if (!refused) this.deps.engine.assertAvailable();
    if (!refused) throw new DomainError('unavailable', `No engine can be asked: ${lacks.join('; ')}`);
    throw refusedRun({ ...refused, error: { ...refused.error, message: 'No engine can run this job', details: lacks.join('; ') } }, `No engine can run it: ${lacks.join('; ')}.`);
  }

  /** `POST /api/admin/history/retry`: same parameters, same resolved seeds, same input image. */
  async retry(promptId: string, submitter?: string, actor: Actor = OWNER_ACTOR, ownerId = actor.userId): Promise<{ prompt_id: string; retry_of: string }> {
    const original = this.deps.jobs.get(promptId);
    if (!original || !mayTouch(actor, original.owner_id)) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (!original.workflow_id) throw new DomainError('invalid', `Job ${promptId} has no workflow_id and cannot be retried`);
    const params: Record<string, unknown> = { ...original.params, ...original.seeds };
    if (original.input_image) params[EXISTING_INPUT_IMAGE_KEY] = original.input_image;
    let result: ExecuteResult;
    try {
      // A person's retry counts against their limits; Studio's own after a restart (the owner acting for someone) does not.
      const countsFor = actor.userId === OWNER_ID ? undefined : ownerId;
      result = await this.execute(original.workflow_id, params, undefined, { retryOf: promptId, presetId: original.preset_id, submitter, ownerId, countsFor });
    } catch (err) {
      // "Not found" here would read as "job not found"; the job exists, its workflow does not (spec: 500).
      if (isKind(err, 'not_found')) throw new DomainError('broken', `Cannot retry ${promptId}: ${err.message}`);
      throw err;
    }
    this.deps.events.emit('job.retried', 'info', `Job retried: ${original.workflow_name ?? original.workflow_id}`, {
      prompt_id: result.prompt_id,
      retry_of: promptId,
      workflow_id: original.workflow_id,
      user_id: ownerId,
    });
    return { prompt_id: result.prompt_id, retry_of: promptId };
  }
}
