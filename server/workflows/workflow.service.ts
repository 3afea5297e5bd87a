/**
 * Workflows as Studio serves them: the list with readiness, one manifest, its definition for
 * building, and the engine's node schemas (the local pool engine's cache: `object_info` is heavy).
 * When the engine cannot give its node list (down, hung), readiness is computed from the last
 * list it gave and marked stale (`readiness_stale`, `readiness_as_of`) rather than waiting for it
 * or calling every node missing.
 */
import type { EngineClient } from '../engine/engine.client.js';
import type { PoolEngine } from '../engine/pool/pool-engine.js';
import type { EventBus } from '../events/event-bus.js';
import { DomainError } from '../domain-error.js';
import type { Logger } from '../logging.js';
import { romeIso } from '../time.js';
import { createEngineModelPresence, lacksOn } from './engine-model-presence.js';
import { createModelPresence } from './model-presence.store.js';
import { groupNodePackages } from './node-packages.js';
import { workflowListEntry } from './readiness.js';
import { checkNodeSources, type KnownSources } from './import/node-sources.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import { loadDefinition, loadIndex, loadWorkflows, requireWorkflow, type WorkflowDefinition, type WorkflowEntry } from './workflow.store.js';

export interface WorkflowServiceDeps {
  dir: string;
  modelsDir: string;
  engine: Pick<EngineClient, 'assertAvailable'>;
  /** The local engine of the pool: its node list is cached there, once for every user. */
  nodes: Pick<PoolEngine, 'readObjectInfo' | 'lastObjectInfo' | 'clearObjectInfo'>;
  /** The catalogs' `dest` for a model file (undefined for a file in no catalog). */
  destOf: (file: string) => string | undefined;
  /** True when a model file of `bytes` is well short of its catalog's size: on disk, but not ready. */
  isShortFile?: (file: string, bytes: number) => boolean;
  /**
   * True for an external engine: its model folders are its own, so a model counts as present
   * only when the engine offers it (its loader combos), not when it is in Studio's `models/`.
   * A managed engine gets Studio's `models/` through extra_model_paths.yaml, so disk counts there.
   */
  modelsFromEngine?: boolean;
  /** The install URLs the node maps know by package name (imported `node_sources` are checked against them). */
  knownNodeSources?: () => Promise<KnownSources>;
  /** The node lists of the pool's other engines that answer ("ready on 2 of 3 engines"). */
  otherEngines?: () => Promise<ObjectInfo[]>;
  events: EventBus;
  logger: Logger;
}

/** The engine's node list readiness is computed from, and whether it is the current one. */
interface NodeInfo {
  info: ObjectInfo | null;
  /** Set when it is not: `readiness_as_of` is when the engine gave it (Rome time), null when it never has. */
  stale: { readiness_stale: true; readiness_as_of: string | null } | null;
  reason: string | null;
}

export class WorkflowService {
  /** Broken workflows already reported, so a list refresh does not repeat the event. */
  private readonly reported = new Map<string, string>();

  constructor(private readonly deps: WorkflowServiceDeps) {}

  /**
   * `GET /api/admin/workflows`: the index plus every workflow with its readiness. While the
   * engine cannot give its node list, the list and each entry carry `readiness_stale` and
   * `readiness_as_of`, and the list says why (`readiness_reason`).
   */
  async list(): Promise<{ version: number; date: string; workflows: Record<string, unknown>[] }> {
    const [{ index }, entries, nodes] = await Promise.all([loadIndex(this.deps.dir), loadWorkflows(this.deps.dir), this.nodeInfo()]);
    const others = (await this.deps.otherEngines?.()) ?? [];
    const rows = await this.rows(entries, nodes);
    const workflows = rows.map((listed, i) => {
      const manifest = entries[i]?.manifest;
      if (others.length === 0 || !manifest) return listed;
      // With a pool: on how many engines it can run (this one by its readiness, the others by their node lists).
      const ready = (listed.ready === true ? 1 : 0) + others.filter((info) => lacksOn(manifest, info).length === 0).length;
      return { ...listed, engines_ready: { ready, total: others.length + 1 } };
    });
    return { version: index.version, date: index.date, workflows, ...(nodes.stale ? { ...nodes.stale, readiness_reason: nodes.reason } : {}) };
  }

  /** Each installed workflow the engine with node list `info` cannot run, and what it lacks. */
  async lacksOn(info: ObjectInfo): Promise<Array<{ workflow_id: string; missing: string[] }>> {
    const entries = await loadWorkflows(this.deps.dir);
    return entries.flatMap((e) => (e.manifest ? [{ workflow_id: e.id, missing: lacksOn(e.manifest, info) }] : [])).filter((w) => w.missing.length > 0);
  }

  /** One workflow's manifest plus readiness (marked stale as in `list`); 404 when unknown. */
  async get(id: string): Promise<Record<string, unknown>> {
    const entry = await requireWorkflow(this.deps.dir, id);
    const [row] = await this.rows([entry], await this.nodeInfo());
    return row as Record<string, unknown>;
  }

  /** Each entry's readiness, node source checks and stale marks (and a broken one reported). */
  private async rows(entries: WorkflowEntry[], nodes: NodeInfo): Promise<Record<string, unknown>[]> {
    for (const entry of entries) this.reportIfBroken(entry);
    // The node maps' sources are read only when a workflow names sources of its own.
    const known = entries.some((e) => e.manifest?.node_sources) ? await this.deps.knownNodeSources?.().catch(() => undefined) : undefined;
    const isPresent = this.modelPresence(nodes.info);
    const packages = nodes.info ? groupNodePackages(nodes.info) : [];
    return entries.map((e) => ({ ...workflowListEntry(e, isPresent, packages), ...sourceChecks(e, known ?? new Map()), ...nodes.stale }));
  }

  /** Everything needed to build the workflow's graph; 404 unknown, 500 broken. */
  async definition(id: string): Promise<WorkflowDefinition> {
    const entry = await requireWorkflow(this.deps.dir, id);
    if (entry.error !== undefined || !entry.manifest) throw new DomainError('broken', `Workflow ${id} is broken: ${entry.error ?? 'no manifest'}`);
    return loadDefinition(entry);
  }

  /** The engine's node schemas (the local engine's cached list: an external engine's model lists change live). */
  objectInfo(): Promise<ObjectInfo> {
    return this.deps.nodes.readObjectInfo();
  }

  /** The node list readiness uses: the engine's current one, else the last it gave, marked stale. */
  private async nodeInfo(): Promise<NodeInfo> {
    try {
      // A node list cached before the engine went down is not current either.
      this.deps.engine.assertAvailable();
      return { info: await this.objectInfo(), stale: null, reason: null };
    } catch (err) {
      const last = this.deps.nodes.lastObjectInfo();
      return { info: last?.value ?? null, stale: { readiness_stale: true, readiness_as_of: last ? romeIso(new Date(last.at)) : null }, reason: (err as Error).message };
    }
  }

  /** How readiness decides a model file is there: the engine's own lists, or Studio's disk. */
  private modelPresence(info: ObjectInfo | null): (file: string) => boolean {
    if (!this.deps.modelsFromEngine) return createModelPresence(this.deps.modelsDir, this.deps.destOf, this.deps.isShortFile);
    return createEngineModelPresence(info);
  }

  /** Forget the cached node list (the engine restarted, nodes were installed). */
  invalidateNodes(): void {
    this.deps.nodes.clearObjectInfo();
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

/** `node_source_checks` for an entry whose manifest names install URLs (they came from a file). */
function sourceChecks(entry: WorkflowEntry, known: KnownSources): { node_source_checks?: ReturnType<typeof checkNodeSources> } {
  const sources = entry.manifest?.node_sources;
  return sources ? { node_source_checks: checkNodeSources(sources, known) } : {};
}
