/**
 * `POST /api/admin/workflows/import`: an uploaded workflow file → a Studio workflow stored like
 * a shipped one (`<id>/manifest.yaml` + `workflow.json`, `index.json` bumped) with a proposed
 * form and its needs, or a Studio workflow ZIP (an export) restored as it was. The folder is written under a hidden temporary name and renamed into
 * place; the index is written to a temporary file and renamed; imports run one at a time so
 * two never race on the index.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { WORKFLOW_ID_PATTERN, parseManifest, type WorkflowImportAnswer, type WorkflowManifest } from '../../contracts/workflows.contract.js';
import { DomainError } from '../../domain-error.js';
import { minuteStamp } from '../../time.js';
import { buildGraph } from '../graph-builder.js';
import type { ApiGraph, ObjectInfo } from '../../engine/engine-graph.js';
import { requireWorkflow } from '../workflow.store.js';
import { proposeForm, type ProposedForm } from './propose-form.js';
import { readWorkflowFile } from './read-workflow-file.js';
import { applyRenames } from './model-match.js';
import { requirementsOf, type ModelCatalog, type NodeMap, type Requirements } from './requirements.js';
import { staticFiles, writeNewFolder } from './workflow-folder.js';
import { readWorkflowZip } from './workflow-zip.js';
import { checkNodeSources, type KnownSources } from './node-sources.js';
import { isZip } from './zip-reader.js';


export interface ImportOptions {
  /** The uploaded file's name (the default name and id come from it). */
  fileName: string;
  id?: string;
  name?: string;
  category?: string;
}

export interface WorkflowImportDeps {
  /** The data directory's workflows folder. */
  dir: string;
  objectInfo: () => Promise<ObjectInfo>;
  /** The engine's built-in node types when it does not answer (a node dump Studio ships), so they are not taken for packages. */
  coreNodes?: () => Promise<ObjectInfo>;
  /** The node map for these node types the engine lacks (may download it first; see node-map.store.ts). */
  nodeMap: (types: string[]) => Promise<{ map: NodeMap; warning?: string }>;
  /** The model catalogs: a file's folder by name, a file by SHA-256. */
  catalog: ModelCatalog;
  /** The install URLs the node maps know by package name (a file's `node_sources` are checked against them). */
  knownSources?: () => Promise<KnownSources>;
}

export class WorkflowImportService {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: WorkflowImportDeps) {}

  /** Import one file; 400 for a file that is not a workflow, 409 when the id is taken. */
  import(bytes: Buffer, options: ImportOptions): Promise<WorkflowImportAnswer> {
    return this.serialized(() => this.importNow(bytes, options));
  }

  /** The folder of workflow `id`, to be zipped for export; 404 when unknown. */
  async exportFolder(id: string): Promise<{ dir: string; fileName: string }> {
    const entry = await requireWorkflow(this.deps.dir, id);
    const version = entry.manifest?.version;
    return { dir: entry.dir, fileName: `${id}${version === undefined ? '' : `-v${version}`}.zip` };
  }

  /** An uploaded engine workflow → its proposed form, needs and warnings (nothing is written). */
  async convert(bytes: Buffer): Promise<Converted> {
    const objectInfo = await this.deps.objectInfo().catch(() => null);
    const warnings: string[] = [];
    if (!objectInfo) warnings.push('the engine did not answer: widget names, labels and limits could not be checked against its nodes');
    const read = readWorkflowFile(bytes, objectInfo ?? {});
    if (!objectInfo && read.source !== 'api') {
      throw new DomainError('unavailable', "The engine is not running: an editor-format workflow needs the engine's node list to be converted. Start the engine and import again.");
    }
    const form = proposeForm(read, objectInfo ?? {});
    const known: ObjectInfo = objectInfo ?? (await this.deps.coreNodes?.().catch(() => ({}))) ?? {};
    const lacking = [...new Set(Object.values(form.graph).map((node) => node.class_type))].filter((type) => !known[type]);
    const nodeMap = await this.deps.nodeMap(lacking);
    if (nodeMap.warning) warnings.push(nodeMap.warning);
    const needs = requirementsOf(form.graph, known, nodeMap.map, this.deps.catalog, read.modelHashes);
    applyRenames(form.graph, form.inputs, needs.renamed);
    warnings.push(...read.warnings, ...form.warnings, ...needs.warnings);
    return { form, needs, objectInfo: objectInfo ?? {}, warnings };
  }

  /** Run `task` in the one-at-a-time queue every workflow write goes through. */
  serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async importNow(bytes: Buffer, options: ImportOptions): Promise<WorkflowImportAnswer> {
    // A made-up id (slugId) is always a valid one; only a given one is checked.
    const given = options.id?.trim() || undefined;
    if (given !== undefined && !WORKFLOW_ID_PATTERN.test(given)) throw new DomainError('invalid', `id "${given}": workflow ids are letters, digits, "-" and "_"`);
    if (isZip(bytes)) {
      const folder = await readWorkflowZip(bytes, given);
      await writeNewFolder(this.deps.dir, folder.manifest, folder.files);
      return { id: folder.manifest.id, manifest: folder.manifest, warnings: [], ...(await this.sourceChecks(folder.manifest)) };
    }
    const { form, needs, warnings } = await this.convert(bytes);
    const stem = path.basename(options.fileName).replace(/\.[^.]*$/, '');
    const name = options.name?.trim() || stem || 'Imported workflow';
    const id = given ?? slugId(name);
    const manifest = parseManifestOrThrow({
      id,
      name,
      type: 'static',
      category: options.category?.trim() || 'imported',
      description: `Imported from ${path.basename(options.fileName)}.`,
      author: '',
      version: 1,
      date: minuteStamp(),
      inputs: form.inputs,
      outputs: form.outputs,
      required_models: needs.required_models,
      required_nodes: needs.required_nodes,
      ...(Object.keys(needs.node_sources).length > 0 ? { node_sources: needs.node_sources } : {}),
    });
    const files = await buildableFiles(manifest, form.graph);
    await writeNewFolder(this.deps.dir, manifest, files);
    return { id, manifest, warnings, ...(await this.sourceChecks(manifest)) };
  }

  /** Where each package the manifest names a source for would be installed from. */
  private async sourceChecks(manifest: WorkflowManifest): Promise<Pick<WorkflowImportAnswer, 'node_source_checks'>> {
    if (!manifest.node_sources) return {};
    const known = (await this.deps.knownSources?.().catch(() => null)) ?? new Map();
    return { node_source_checks: checkNodeSources(manifest.node_sources, known) };
  }
}

/** What `convert` makes of an upload. */
export interface Converted {
  form: ProposedForm;
  needs: Requirements;
  objectInfo: ObjectInfo;
  warnings: string[];
}

/** A static workflow's files, built once with the form's defaults: a stray `{{…}}` or a bad mapping is a 400 now, not at the first run. */
export async function buildableFiles(manifest: WorkflowManifest, graph: ApiGraph): Promise<Map<string, Buffer>> {
  const files = await staticFiles(manifest, graph);
  try {
    buildGraph({ manifest, dir: '', template: files.get('workflow.json')!.toString('utf8') }, {}, { uploadedImage: 'example.png' });
  } catch (error) {
    throw new DomainError('invalid', `The workflow converted, but its form does not build: ${(error as Error).message}`);
  }
  return files;
}

export function parseManifestOrThrow(raw: unknown): WorkflowManifest {
  try {
    return parseManifest(raw);
  } catch (error) {
    throw new DomainError('invalid', (error as Error).message);
  }
}

/** `My SDXL flow (v2)` → `my-sdxl-flow-v2`. */
function slugId(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || `imported-${randomBytes(3).toString('hex')}`;
}
