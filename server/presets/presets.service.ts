/**
 * Presets: list, read, create (or replace), rename, delete, import, and make one from a finished
 * job. The folder is the truth; the `saved_prompts` mirror follows each change. Changes run one
 * at a time, so two renames racing for one id cannot both win.
 */
import { isKind, notFound, DomainError } from '../domain-error.js';
import { validate, describeZodError } from '../http/errors.js';
import type { JobStore } from '../jobs/job.store.js';
import { ACTIVE_STATUSES } from '../contracts/jobs.contract.js';
import type { Logger } from '../logging.js';
import { EXISTING_INPUT_IMAGE_KEY } from '../workflows/params.js';
import {
  completePreset,
  presetIdSchema,
  presetInputSchema,
  type FromJobInput,
  type Preset,
  type PresetInput,
  type PresetListEntry,
  type RenameInput,
} from '../contracts/presets.contract.js';
import { PresetFileError, type PresetStore } from './preset.store.js';
import { mayRun, mayTouch, OWNER_ACTOR, seesEveryone, type Actor } from '../http/actor.js';
import { OWNER_ID } from '../contracts/users.contract.js';
import type { SavedPromptsMirror } from './saved-prompts.store.js';
import type { WorkflowService } from '../workflows/workflow.service.js';
import { findPlaceholders, toQuestions } from '../contracts/placeholder-syntax.js';

export interface PresetsServiceDeps {
  store: PresetStore;
  mirror: SavedPromptsMirror;
  jobs: JobStore;
  /** The installed workflows: their names (default for `workflow_name`) and image inputs. */
  workflows: Pick<WorkflowService, 'get' | 'definition'>;
  /** `MODELHUB_BASE_URL`, for `modelhub_url` in the list. */
  modelhubBaseUrl: string;
  logger: Logger;
  /** The workflows a person may run (their allow-list); null: any. The list marks the others. */
  allowedWorkflows?: (userId: string) => readonly string[] | null;
}

/** `{id, message}`: the answer of create, import and from-job. */
export interface PresetSaved {
  id: string;
  message: string;
}

type ParsedPresetInput = ReturnType<typeof presetInputSchema.parse>;

export class PresetsService {
  /** The tail of the queue of changes; each change waits for the one before. */
  private changes: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: PresetsServiceDeps) {}

  /** Fill `saved_prompts` from the folder (boot). */
  async rebuildMirror(): Promise<void> {
    await this.serial(async () => {
      const { presets, broken } = await this.deps.store.all();
      for (const err of broken) this.deps.logger.warn(err.message);
      this.deps.mirror.rebuild(presets);
    });
  }

  /** `GET /api/admin/presets`: list entries sorted by name, then id. Unreadable files are skipped. */
  async list(actor: Actor = OWNER_ACTOR): Promise<PresetListEntry[]> {
    const { presets, broken } = await this.deps.store.all();
    for (const err of broken) this.deps.logger.warn(`${err.message} (left out of the preset list)`);
    // Issue 43: a preset the asker may not run stays listed (they may still read, rename or delete
    // their own) but is marked, so no page or chat offers a Run that can only answer 403.
    const allowed = mayRun(actor) ? (this.deps.allowedWorkflows?.(actor.userId) ?? null) : [];
    return presets
      .filter((p) => seesPreset(p, actor))
      .map((p) => ({ ...this.listEntry(p), ...(allowed && !allowed.includes(p.workflow.workflow_id) ? { runnable: false as const } : {}) }))
      .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id));
  }

  /** The jobs presets were made from (`source.prompt_id`): disk retention keeps them. */
  async sourceJobs(): Promise<string[]> {
    const { presets } = await this.deps.store.all();
    return presets.flatMap((p) => (typeof p.source?.prompt_id === 'string' ? [p.source.prompt_id] : []));
  }

  /** The stored preset: 400 bad id, 404 unknown (or neither `actor`'s nor shared), 500 unreadable file. */
  async get(id: string, actor: Actor = OWNER_ACTOR): Promise<Preset> {
    checkId(id);
    const preset = await this.deps.store.get(id).catch((err: unknown) => {
      throw err instanceof PresetFileError ? new DomainError('broken', err.message) : err;
    });
    if (!preset || !seesPreset(preset, actor)) throw notFound(`Preset not found: ${id}`);
    return preset;
  }

  /** A preset `actor` may change: 404 as `get`, 403 for one only shared with them. */
  private async own(id: string, actor: Actor): Promise<Preset> {
    const preset = await this.get(id, actor);
    if (!mayTouch(actor, preset.owner_id as string | undefined)) throw sharedWithYou(id);
    return preset;
  }

  /**
   * Who a preset saved under `id` by `actor` belongs to, and whether it is shared: a replaced
   * preset keeps its owner (and, unless `shared` is given, its sharing). Someone else's preset is
   * not replaced: 403 when it is shared with `actor`, else 409 as for any id in use.
   */
  private async ownership(id: string, actor: Actor, shared: unknown): Promise<{ ownerId: string; shared: boolean }> {
    if (shared !== undefined && shared !== false && !seesEveryone(actor)) throw new DomainError('forbidden', 'Only the owner of Studio or an admin can share a preset');
    const current = await this.deps.store.get(id).catch((err: unknown) => {
      if (err instanceof PresetFileError) return null;
      throw err;
    });
    if (current && !mayTouch(actor, current.owner_id as string | undefined)) {
      if (seesPreset(current, actor)) throw sharedWithYou(id);
      throw new DomainError('conflict', `A preset with id '${id}' already exists`);
    }
    return { ownerId: (current?.owner_id as string | undefined) ?? actor.userId, shared: typeof shared === 'boolean' ? shared : current?.shared === true };
  }

  /** True unless the id is free (an unreadable file or a refused id still blocks the name). */
  exists(id: string): Promise<boolean> {
    return this.get(id).then(
      () => true,
      (err: unknown) => !isKind(err, 'not_found'),
    );
  }

  /**
   * `GET /api/admin/presets/{id}`: the stored preset plus `needs_image` (its workflow takes an
   * input image and the preset carries none), so a client such as the chat bot knows to ask for one.
   */
  async detail(id: string, actor: Actor = OWNER_ACTOR): Promise<Preset & { needs_image: boolean }> {
    const preset = await this.get(id, actor);
    const { params } = preset.workflow;
    const { manifest } = await this.deps.workflows.definition(preset.workflow.workflow_id).catch(() => ({ manifest: { inputs: [] } }));
    const input = manifest.inputs.find((i) => i.type === 'image')?.id ?? null;
    const carried = [input, EXISTING_INPUT_IMAGE_KEY].some((key) => key !== null && typeof params[key] === 'string' && params[key] !== '');
    return { ...preset, needs_image: input !== null && !carried };
  }

  /**
   * Create a preset, or replace the one with the same id (there is no other way to change
   * parameters). Input is validated here too, so in-process callers (the model hub) get the
   * same 400s as HTTP clients.
   */
  async createPreset(input: PresetInput | Record<string, unknown>, actor: Actor = OWNER_ACTOR): Promise<PresetSaved> {
    const parsed = validate(presetInputSchema, input, 'body');
    return this.saveInput(parsed, actor, parsed.shared, (existed) => (existed ? 'updated' : 'created'));
  }

  /** `POST /import`: a preset file's text; same rules as create, with the file's own reasons. */
  async importPreset(text: string, fileName: string, actor: Actor = OWNER_ACTOR): Promise<PresetSaved> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new DomainError('invalid', `The file is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new DomainError('invalid', 'The file must hold one preset as a JSON object');
    const doc = { ...(json as Record<string, unknown>) };
    // An exported file is named `<id>.json`: a document without an id takes its file name.
    const stem = fileName.replace(/\.json$/i, '');
    if (doc.id === undefined && presetIdSchema.safeParse(stem).success) doc.id = stem;
    const parsed = presetInputSchema.safeParse(doc);
    if (!parsed.success) throw new DomainError('invalid', describeZodError(parsed.error, 'preset file').replace(/^Invalid request /, 'Invalid '));
    // An exported file names its owner and sharing; the importer decides them here, not the file.
    return this.saveInput(parsed.data, actor, undefined, (existed) => (existed ? 'imported, replacing the one with that id' : 'imported'));
  }

  /** Create or replace a preset from checked input; `done` words what happened to it by whether the id was in use. */
  private saveInput(input: ParsedPresetInput, actor: Actor, shared: unknown, done: (existed: boolean) => string): Promise<PresetSaved> {
    return this.serial(async () => {
      const preset = stamp(await this.complete(input), await this.ownership(input.id, actor, shared));
      const existed = await this.deps.store.taken(preset.id);
      await this.save(preset);
      return { id: preset.id, message: `Preset '${preset.id}' ${done(existed)}` };
    });
  }

  /** `PUT /{id}/rename`: change fields in place; a new id renames the file (409 when taken). */
  async rename(id: string, patch: RenameInput, actor: Actor = OWNER_ACTOR): Promise<{ id: string; name: string }> {
    checkId(id);
    return this.serial(async () => {
      const current = await this.own(id, actor);
      if (patch.shared !== undefined && !seesEveryone(actor)) throw new DomainError('forbidden', 'Only the owner of Studio or an admin can share a preset');
      const newId = patch.id ?? id;
      if (newId !== id && (await this.deps.store.taken(newId, id))) {
        throw new DomainError('conflict', `A preset with id '${newId}' already exists`);
      }
      const next: Preset = { ...current, id: newId };
      if (patch.name !== undefined) next.name = patch.name.trim() ? patch.name : newId;
      if (patch.description !== undefined) next.description = patch.description;
      if (patch.private !== undefined) next.private = patch.private;
      if (patch.shared !== undefined) stamp(next, { ownerId: (current.owner_id as string | undefined) ?? OWNER_ID, shared: patch.shared });
      await this.deps.store.write(next);
      if (newId !== id) {
        // Same file on a case-insensitive disk (Foo → foo): the write above already renamed it.
        if (await this.deps.store.taken(id, newId)) await this.deps.store.remove(id);
        this.deps.mirror.rename(id, next);
      } else {
        this.deps.mirror.upsert(next);
      }
      return { id: next.id, name: next.name };
    });
  }

  /** `DELETE /{id}`: 404 unknown. */
  async delete(id: string, actor: Actor = OWNER_ACTOR): Promise<{ ok: true }> {
    checkId(id);
    return this.serial(async () => {
      if (!seesEveryone(actor)) await this.own(id, actor);
      if (!(await this.deps.store.remove(id))) throw notFound(`Preset not found: ${id}`);
      this.deps.mirror.remove(id);
      return { ok: true as const };
    });
  }

  /** The file of a preset for export: 404 unknown (and the file is checked to be readable). */
  async exportFile(id: string, actor: Actor = OWNER_ACTOR): Promise<{ path: string; within: string; filename: string }> {
    await this.get(id, actor);
    return { path: this.deps.store.file(id), within: this.deps.store.dir, filename: `${id}.json` };
  }

  /**
   * `POST /from-job/{prompt_id}`: a preset with a finished job's workflow and parameters (its
   * resolved seeds included). Body `{id?, name?}`; without an id one is made from the workflow
   * and the prompt id. 404 unknown job, 400 unfinished job, 409 when the given id is taken.
   */
  async fromJob(promptId: string, opts: FromJobInput, actor: Actor = OWNER_ACTOR): Promise<PresetSaved> {
    const job = this.deps.jobs.get(promptId);
    if (!job || !mayTouch(actor, job.owner_id)) throw new DomainError('not_found', `Job not found: ${promptId}`);
    if (ACTIVE_STATUSES.includes(job.status)) throw new DomainError('invalid', `Job ${promptId} is still ${job.status}; make a preset once it has finished`);
    if (!job.workflow_id) throw new DomainError('invalid', `Job ${promptId} has no workflow_id`);
    const workflowId = job.workflow_id;
    return this.serial(async () => {
      let id = opts.id;
      if (id !== undefined && (await this.deps.store.taken(id))) throw new DomainError('conflict', `A preset with id '${id}' already exists`);
      id ??= await this.freeId(`${workflowId}-${promptId.replace(/[^A-Za-z0-9]/g, '').slice(0, 8)}`);
      const { [EXISTING_INPUT_IMAGE_KEY]: _image, ...params } = job.params;
      const workflowName = job.workflow_name ?? workflowId;
      const preset = await this.complete(
        validate(presetInputSchema, {
          id,
          name: opts.name ?? `${workflowName} (${job.queued_at?.replace('T', ' ') ?? promptId})`,
          workflow: { workflow_id: workflowId, workflow_name: workflowName, params: { ...params, ...job.seeds } },
          source: { type: 'job', prompt_id: promptId },
        }),
      );
      stamp(preset, { ownerId: actor.userId, shared: false });
      await this.save(preset);
      return { id, message: `Preset '${id}' created from job ${promptId}` };
    });
  }

  private listEntry(p: Preset): PresetListEntry {
    const entry: PresetListEntry = {
      id: p.id,
      name: p.name,
      description: p.description,
      private: p.private,
      workflow_id: p.workflow.workflow_id,
      workflow_name: p.workflow.workflow_name,
    };
    if (typeof p.owner_id === 'string') entry.owner_id = p.owner_id;
    if (p.shared === true) entry.shared = true;
    // The card lists what a run will ask, so a person can pick a preset by its questions.
    const questions = toQuestions(findPlaceholders(p.workflow.params)).map((q) => q.question);
    if (questions.length) entry.questions = questions;
    if (p.source?.type === 'modelhub') {
      const imageId = p.source.modelhub_image_id ?? null;
      entry.source_type = 'modelhub';
      entry.modelhub_image_id = imageId;
      entry.modelhub_url = imageId === null ? null : `${this.deps.modelhubBaseUrl}/images/${imageId}`;
      entry.detected_type = p.source.detected_type ?? (typeof p.detected_type === 'string' ? p.detected_type : null);
    }
    return entry;
  }

  /** Defaults, with `workflow_name` from the installed workflow when the input has none. */
  private async complete(input: ParsedPresetInput): Promise<Preset> {
    if (input.workflow.workflow_name === undefined) {
      const { name } = await this.deps.workflows.get(input.workflow.workflow_id).catch(() => ({ name: undefined }));
      if (typeof name === 'string' && name) input = { ...input, workflow: { ...input.workflow, workflow_name: name } };
    }
    return completePreset(input);
  }

  private async save(preset: Preset): Promise<void> {
    await this.deps.store.write(preset);
    this.deps.mirror.upsert(preset);
  }

  /**
   * A free preset id made from `base`: `base` itself, else `base-2`, `base-3`… (characters not
   * allowed in an id become `-`). For callers that must not replace an existing preset.
   */
  async freeId(base: string): Promise<string> {
    const stem = base.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 100) || 'preset';
    for (let n = 1; ; n++) {
      const id = n === 1 ? stem : `${stem}-${n}`;
      if (!(await this.deps.store.taken(id))) return id;
    }
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.changes.then(work, work);
    this.changes = run.catch(() => undefined);
    return run;
  }
}

/** 400 unless `id` is a valid preset id. */
function checkId(id: string): void {
  const result = presetIdSchema.safeParse(id);
  if (!result.success) throw new DomainError('invalid', `Invalid preset id '${id}': ${result.error.issues[0]?.message ?? 'not allowed'}`);
}

function sharedWithYou(id: string): DomainError {
  return new DomainError('forbidden', `Preset '${id}' is shared with you: only its owner or an admin can change it`);
}

/** Whether `actor` sees a preset: their own (or everyone's, for owner and admins), or a shared one. */
function seesPreset(preset: Preset, actor: Actor): boolean {
  return preset.shared === true || mayTouch(actor, preset.owner_id as string | undefined);
}

/** Set a preset's owner and sharing; both stay out of the file for the owner's unshared presets (as before people). */
function stamp(preset: Preset, { ownerId, shared }: { ownerId: string; shared: boolean }): Preset {
  delete preset.owner_id;
  delete preset.shared;
  if (ownerId !== OWNER_ID) preset.owner_id = ownerId;
  if (shared) preset.shared = true;
  return preset;
}
