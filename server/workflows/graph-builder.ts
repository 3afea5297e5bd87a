/**
 * The runner's entry point to graph building: input image → seeds → static or dynamic graph
 * → (for execution) outputs redirected into the job folder. `POST /build` stops before the
 * redirect; `POST /execute` uses `prepareRun`.
 */
import { assembleDynamicGraph } from './graph-dynamic.js';
import { buildStaticGraph } from './graph-static.js';
import { type RedirectedOutput, type RedirectOptions, redirectOutputs } from './output-redirect.js';
import { applyInputImage, type WorkflowParams } from './params.js';
import { resolveSeeds } from './seeds.js';
import type { OutputKind } from './types.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import { templateError } from './workflow-errors.js';
import type { WorkflowDefinition } from './workflow.store.js';

export interface BuildOptions {
  /** Engine file name of an image uploaded with this request; wins over `_existing_input_image`. */
  uploadedImage?: string;
  /** Seed source (tests pass a fixed one). */
  random?: () => number;
}

export interface BuiltGraph {
  graph: ApiGraph;
  /** The parameters as used: image input filled, seeds resolved. Store these on the job. */
  params: WorkflowParams;
  /** Seed input id → resolved seed (the execute response's `seeds`). */
  seeds: Record<string, number>;
  /** `outputs_map` translated to this graph's node ids, for `redirectOutputs`. */
  outputOverrides: Record<string, OutputKind>;
}

/** Build the API graph for a workflow and its form parameters (nothing redirected yet). */
export function buildGraph(definition: WorkflowDefinition, params: WorkflowParams, options: BuildOptions = {}): BuiltGraph {
  const { manifest } = definition;
  const withImage = applyInputImage(manifest, params, options.uploadedImage);
  const resolved = resolveSeeds(manifest, withImage, options.random);
  const outputsMap = manifest.outputs_map ?? {};

  if (manifest.type === 'static') {
    if (definition.template === undefined) throw templateError(`${manifest.id}: workflow.json was not loaded`);
    const graph = buildStaticGraph(definition.template, manifest, resolved.params);
    return { graph, ...resolved, outputOverrides: { ...outputsMap } };
  }
  if (!definition.blocks) throw templateError(`${manifest.id}: blocks were not loaded`);
  const { graph, origins } = assembleDynamicGraph(definition.blocks, manifest, resolved.params);
  const outputOverrides: Record<string, OutputKind> = {};
  for (const [key, kind] of Object.entries(outputsMap)) {
    const [block, local] = key.split(':');
    for (const [id, origin] of Object.entries(origins)) {
      if (origin.block === block && origin.local === local) outputOverrides[id] = kind;
    }
  }
  return { graph, ...resolved, outputOverrides };
}

/** Build and redirect every output into `jobFolder` (a folder name under the output directory). */
export function prepareRun(
  definition: WorkflowDefinition,
  params: WorkflowParams,
  jobFolder: string,
  options: BuildOptions & Omit<RedirectOptions, 'overrides'> = {},
): Omit<BuiltGraph, 'outputOverrides'> & { outputs: RedirectedOutput[] } {
  const built = buildGraph(definition, params, options);
  const redirected = redirectOutputs(built.graph, jobFolder, { ...options, overrides: built.outputOverrides });
  return { graph: redirected.graph, params: built.params, seeds: built.seeds, outputs: redirected.outputs };
}

/**
 * `run` with the uploaded image named `to` where it was built with `from`: the engine renames an
 * upload on a clash (`x (1).png`), and the graph must name the file it kept. `from` is the unique
 * name the runner made, so only the image's own values match it.
 */
export function renameInputImage<T extends { graph: ApiGraph; params: WorkflowParams }>(run: T, from: string, to: string): T {
  const swap = <V>(record: Record<string, V>) => Object.fromEntries(Object.entries(record).map(([key, value]) => [key, value === from ? to : value]));
  const graph: ApiGraph = Object.fromEntries(Object.entries(run.graph).map(([id, node]) => [id, { ...node, inputs: swap(node.inputs) }]));
  return { ...run, graph, params: swap(run.params) };
}
