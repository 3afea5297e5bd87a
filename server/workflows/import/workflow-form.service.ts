/**
 * The form editor's side of a stored static workflow: `get` lists the graph's nodes and fields
 * with the form's inputs; `save` replaces the form (any widget of any node as an input, removed,
 * reordered, relabelled, defaults/limits/choices set); `reimport` merges a changed version of the
 * workflow (see `reimport-merge.ts`), as a preview or applied. Every write bumps the manifest's
 * version, checks the form builds with its defaults, and goes through the import service's queue.
 */
import type { FormSaveBody, ManifestInput, ReimportAnswer, WorkflowFormAnswer, WorkflowImportAnswer, WorkflowManifest } from '../../contracts/workflows.contract.js';
import { DomainError } from '../../domain-error.js';
import { type ApiGraph, isLink, type ObjectInfo } from '../../engine/engine-graph.js';
import { minuteStamp } from '../../time.js';
import { escapePlaceholders, parseTemplate } from '../placeholders.js';
import { cryptoRandomSeed } from '../seeds.js';
import { loadDefinition, requireWorkflow } from '../workflow.store.js';
import { formNodes, placeholderTargets } from './form-graph.js';
import { mergeReimport } from './reimport-merge.js';
import { replaceFolder } from './workflow-folder.js';
import { buildableFiles, parseManifestOrThrow, type WorkflowImportService } from './workflow-import.service.js';

export class WorkflowFormService {
  constructor(private readonly deps: { dir: string; importer: WorkflowImportService; objectInfo: () => Promise<ObjectInfo> }) {}

  /** The stored form and every node's fields; 404 unknown, 409 for a dynamic workflow. */
  async get(id: string): Promise<WorkflowFormAnswer> {
    const { manifest, graph } = await this.stored(id);
    const objectInfo = await this.deps.objectInfo().catch(() => ({}));
    return { id, manifest, nodes: formNodes(graph, manifest.inputs, objectInfo) };
  }

  /** Replace the form's inputs (in their order); 400 says which input is wrong. */
  save(id: string, body: FormSaveBody): Promise<WorkflowImportAnswer> {
    return this.deps.importer.serialized(async () => {
      const { manifest: old, graph } = await this.stored(id);
      const manifest = parseManifestOrThrow({ ...old, inputs: body.inputs, version: old.version + 1, date: minuteStamp() });
      checkTargets(graph, manifest.inputs, placeholderTargets(graph));
      // A placeholder whose input was removed gets a value of its own again.
      const oldById = new Map(old.inputs.map((input) => [input.id, input]));
      const kept = new Set(manifest.inputs.map((input) => input.id));
      for (const [name, targets] of placeholderTargets(graph)) {
        if (kept.has(name)) continue;
        const value = literalDefault(oldById.get(name));
        if (value === undefined) throw new DomainError('invalid', `the workflow's graph uses {{${name}}}, which no input fills: keep an input "${name}"`);
        for (const t of targets) graph[t.node]!.inputs[t.field] = value;
      }
      const files = await buildableFiles(manifest, graph);
      await replaceFolder(this.deps.dir, manifest, files);
      return { id, manifest, warnings: [] };
    });
  }

  /** Merge a changed version of the workflow; written only with `apply`. */
  async reimport(id: string, bytes: Buffer, apply: boolean): Promise<ReimportAnswer> {
    const converted = await this.deps.importer.convert(bytes);
    return this.deps.importer.serialized(async () => {
      const { manifest: old, graph: oldGraph } = await this.stored(id);
      const merged = mergeReimport(oldGraph, old.inputs, converted.form);
      const { needs } = converted;
      const manifest = parseManifestOrThrow({
        ...old,
        node_sources: undefined,
        version: old.version + 1,
        date: minuteStamp(),
        inputs: merged.inputs,
        outputs: converted.form.outputs,
        required_models: needs.required_models,
        required_nodes: needs.required_nodes,
        ...(Object.keys(needs.node_sources).length > 0 ? { node_sources: needs.node_sources } : {}),
      });
      const files = await buildableFiles(manifest, merged.graph);
      if (apply) await replaceFolder(this.deps.dir, manifest, files);
      return { id, manifest, warnings: converted.warnings, diff: merged.diff, applied: apply };
    });
  }

  private async stored(id: string): Promise<{ manifest: WorkflowManifest; graph: ApiGraph }> {
    const definition = await loadDefinition(await requireWorkflow(this.deps.dir, id));
    if (definition.manifest.type !== 'static' || definition.template === undefined) {
      throw new DomainError('conflict', `"${id}" is a dynamic workflow (assembled from blocks): its form is edited in its files, not here`);
    }
    return { manifest: definition.manifest, graph: parseTemplate(definition.template, `${id}/workflow.json`) as ApiGraph };
  }
}

/** Every mapped input must point at a field of a node that holds a value (not a link). */
function checkTargets(graph: ApiGraph, inputs: ManifestInput[], placeholders: ReadonlyMap<string, unknown>): void {
  for (const input of inputs) {
    if (input.node_id === undefined || input.field === undefined) {
      if (!placeholders.has(input.id)) throw new DomainError('invalid', `input "${input.id}" sets no field: give it node_id and field`);
      continue;
    }
    const node = graph[String(input.node_id)];
    if (!node) throw new DomainError('invalid', `input "${input.id}": the workflow has no node ${input.node_id}`);
    const value = node.inputs[input.field];
    if (value === undefined) throw new DomainError('invalid', `input "${input.id}": node ${input.node_id} (${node.class_type}) has no field "${input.field}"`);
    if (isLink(value)) throw new DomainError('invalid', `input "${input.id}": node ${input.node_id}'s "${input.field}" is linked to another node; a form cannot set it`);
  }
}

/** What a removed placeholder input leaves in the graph: its default (a fresh seed for a seed). */
function literalDefault(input: ManifestInput | undefined): unknown {
  if (!input) return undefined;
  if (input.type === 'seed') return input.default >= 0 ? input.default : cryptoRandomSeed();
  if (input.default === undefined || Array.isArray(input.default)) return undefined;
  return typeof input.default === 'string' ? escapePlaceholders(input.default) : input.default;
}
