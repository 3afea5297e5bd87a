/**
 * Static workflows: `workflow.json` (an API graph with `{{variable}}` placeholders) plus the
 * manifest's `node_id`/`field` mappings, filled from the form parameters.
 */
import { asApiGraph, setMappedInput } from './api-graph.js';
import type { ManifestInput, WorkflowManifest } from '../contracts/workflows.contract.js';
import { type ParamValue, resolveInputValue, type WorkflowParams } from './params.js';
import { parseTemplate, type PlaceholderValue, substitutePlaceholders } from './placeholders.js';
import type { ApiGraph } from '../engine/engine-graph.js';
import { templateError } from './workflow-errors.js';

/**
 * Build the API graph of a static workflow. Seeds must already be resolved (`resolveSeeds`);
 * an image input's value is the engine input file name.
 */
export function buildStaticGraph(template: string, manifest: WorkflowManifest, params: WorkflowParams): ApiGraph {
  const where = `${manifest.id}/workflow.json`;
  const values = inputValues(manifest, params);
  const tree = substitutePlaceholders(parseTemplate(template, where), (name) => values.scalar(name), where);
  const graph = asApiGraph(tree, where);
  for (const input of manifest.inputs) {
    if (input.node_id === undefined || input.field === undefined) continue;
    setMappedInput(graph, String(input.node_id), input.field, values.get(input), input.id);
  }
  return graph;
}

/** Lazily resolved input values: only inputs the graph uses must have a value or a default. */
export function inputValues(manifest: WorkflowManifest, params: WorkflowParams) {
  const byId = new Map(manifest.inputs.map((input) => [input.id, input]));
  const cache = new Map<string, ParamValue>();
  const get = (input: ManifestInput): ParamValue => {
    let value = cache.get(input.id);
    if (value === undefined) {
      value = resolveInputValue(input, params);
      cache.set(input.id, value);
    }
    return value;
  };
  return {
    get,
    /** The value of a `{{name}}` placeholder; `undefined` when no input has that id. */
    scalar(name: string): PlaceholderValue | undefined {
      const input = byId.get(name);
      if (!input) return undefined;
      const value = get(input);
      if (Array.isArray(value)) throw templateError(`{{${name}}} is a list input; lists drive block assembly only`);
      return value;
    },
  };
}
