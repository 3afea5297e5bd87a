/**
 * Workflows as Studio serves them: the list with readiness, one manifest, its definition for
 * building, and the engine's node schemas (cached per engine start, as `object_info` is heavy).
 */
import type { EngineClient } from '../engine/engine.client.js';
import type { EventBus } from '../events/event-bus.js';
import { DomainError, notFound } from '../domain-error.js';
import type { Logger } from '../logging.js';
import { createEngineModelPresence } from './engine-model-presence.js';
import { createModelPresence } from './model-presence.store.js';
import { groupNodePackages } from './node-packages.js';
import { workflowListEntry } from './readiness.js';
import type { ObjectInfo } from './types.js';
import type { NodePackage } from '../contracts/nodes.contract.js';
import { loadDefinition, loadIndex, loadWorkflow, loadWorkflows, type WorkflowDefinition, type WorkflowEntry } from './workflow.store.js';

/** How long an external engine's model lists are trusted before they are asked again. */
const ENGINE_MODELS_MAX_AGE_MS = 60_000;

export interface WorkflowServiceDeps {
  dir: string;
  modelsDir: string;
  engine: EngineClient;
  /** The catalogs' `dest` for a model file (undefined for a file in no catalog). */
  destOf: (file: string) => string | undefined;
  /**
   * True for an external engine: its model folders are its own, so a model counts as present
   * only when the engine offers it (its loader combos), not when it is in Studio's `models/`.
   * A managed engine gets Studio's `models/` through extra_model_paths.yaml, so disk counts there.
   */
  modelsFromEngine?: boolean;
  events: EventBus;
  logger: Logger;
}

export class WorkflowService {
  private objectInfoCache: Promise<ObjectInfo> | null = null;
  private objectInfoAt = 0;
  /** Broken workflows already reported, so a list refresh does not repeat the event. */
  private readonly reported = new Map<string, string>();

  constructor(private readonly deps: WorkflowServiceDeps) {}

  /** `GET /api/admin/workflows`: the index plus every workflow with its readiness. */
  async list(): Promise<{ version: number; date: string; workflows: Record<string, unknown>[] }> {
    const [{ index }, entries, packages] = await Promise.all([loadIndex(this.deps.dir), loadWorkflows(this.deps.dir), this.packagesOrEmpty()]);
    const isPresent = await this.modelPresence();
    for (const entry of entries) this.reportIfBroken(entry);
    return { version: index.version, date: index.date, workflows: entries.map((e) => workflowListEntry(e, isPresent, packages)) };
  }

  /** One workflow's manifest plus readiness; 404 when unknown. */
  async get(id: string): Promise<Record<string, unknown>> {
    const entry = await this.entry(id);
    this.reportIfBroken(entry);
    const isPresent = await this.modelPresence();
    return workflowListEntry(entry, isPresent, await this.packagesOrEmpty());
  }

  /** Everything needed to build the workflow's graph; 404 unknown, 500 broken. */
  async definition(id: string): Promise<WorkflowDefinition> {
    const entry = await this.entry(id);
    if (entry.error !== undefined || !entry.manifest) throw new DomainError('broken', `Workflow ${id} is broken: ${entry.error ?? 'no manifest'}`);
    return loadDefinition(entry);
  }

  /** The engine's node schemas, fetched once per engine start. */
  objectInfo(): Promise<ObjectInfo> {
    if (!this.objectInfoCache) {
      const pending = this.deps.engine.objectInfo() as Promise<ObjectInfo>;
      this.objectInfoCache = pending;
      this.objectInfoAt = Date.now();
      pending.catch(() => {
        if (this.objectInfoCache === pending) this.objectInfoCache = null;
      });
    }
    return this.objectInfoCache;
  }

  /** How readiness decides a model file is there: the engine's own lists, or Studio's disk. */
  private async modelPresence(): Promise<(file: string) => boolean> {
    if (!this.deps.modelsFromEngine) return createModelPresence(this.deps.modelsDir, this.deps.destOf);
    // The engine lists its model folders live: a model added there shows up within a minute.
    if (Date.now() - this.objectInfoAt > ENGINE_MODELS_MAX_AGE_MS) this.invalidateNodes();
    return createEngineModelPresence(await this.objectInfo().catch(() => null));
  }

  /** Forget the cached node list (the engine restarted, nodes were installed). */
  invalidateNodes(): void {
    this.objectInfoCache = null;
  }

  /** Node packages of the running engine; empty when it is unreachable (readiness then says so). */
  async packagesOrEmpty(): Promise<NodePackage[]> {
    try {
      return groupNodePackages(await this.objectInfo());
    } catch {
      return [];
    }
  }

  private async entry(id: string): Promise<WorkflowEntry> {
    const entry = await loadWorkflow(this.deps.dir, id);
    if (!entry) throw notFound(`Workflow not found: ${id}`);
    return entry;
  }

  private reportIfBroken(entry: WorkflowEntry): void {
    if (entry.error === undefined) {
      this.reported.delete(entry.id);
      return;
    }
    if (this.reported.get(entry.id) === entry.error) return;
    this.reported.set(entry.id, entry.error);
    this.deps.logger.warn(`workflow ${entry.id} is broken: ${entry.error}`);
    this.deps.events.emit('workflow.invalid', 'warning', `Workflow ${entry.id} cannot be used: ${entry.error}`, { workflow_id: entry.id, error: entry.error });
  }
}
