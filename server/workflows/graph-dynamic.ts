/**
 * Dynamic workflows: an API graph assembled from `blocks/*.json` according to the parameters.
 *
 * Blocks are visited in the manifest's `blocks` order (default: by file name). A block whose
 * `when` is false is skipped; a `repeat` block is instantiated once per item of its list
 * parameter (0 items: skipped). Every instance gets fresh global ids (sequential integers as
 * strings), its internal links are rewired, each `import` is wired to the latest value exported
 * under that name, and each `export` then replaces that value. So a chain like
 * checkpoint → LoRA × N → sampler threads `model`/`clip` through every LoRA in order.
 */
import { setMappedInput } from './api-graph.js';
import type { BlockTemplate } from './block.schema.js';
import { inputValues } from './graph-static.js';
import type { ManifestInput, WorkflowManifest } from '../contracts/workflows.contract.js';
import type { ParamValue, WorkflowParams } from './params.js';
import { type PlaceholderValue, substitutePlaceholders } from './placeholders.js';
import { type ApiGraph, type ApiNode, isLink, type NodeLink } from '../engine/engine-graph.js';
import { templateError } from './workflow-errors.js';

/** Where a node of the assembled graph came from. */
export interface NodeOrigin {
  block: string;
  /** The node's id inside its block file. */
  local: string;
  /** 0-based instance of a repeated block (0 otherwise). */
  instance: number;
}

/**
 * Assemble a dynamic workflow's API graph, and where each node came from (global node id → origin,
 * to apply block-local mappings and `outputs_map`). Seeds must already be resolved (`resolveSeeds`).
 */
export function assembleDynamicGraph(
  blocks: Record<string, BlockTemplate>,
  manifest: WorkflowManifest,
  params: WorkflowParams,
): { graph: ApiGraph; origins: Record<string, NodeOrigin> } {
  const values = inputValues(manifest, params);
  const inputOf = (name: string, blockName: string, key: string): ManifestInput => {
    const input = manifest.inputs.find((candidate) => candidate.id === name);
    if (!input) throw templateError(`block "${blockName}": ${key} names "${name}", which is not a manifest input`);
    return input;
  };
  const graph: ApiGraph = {};
  const origins: Record<string, NodeOrigin> = {};
  const bus = new Map<string, NodeLink>();
  let nextId = 1;

  for (const blockName of manifest.blocks ?? Object.keys(blocks).sort()) {
    const block = blocks[blockName];
    if (!block) throw templateError(`${manifest.id}: block "${blockName}" is listed but blocks/${blockName}.json is missing`);
    if (block.when !== undefined) {
      const negated = block.when.startsWith('!');
      const on = isTruthy(values.get(inputOf(block.when.replace(/^!/, ''), blockName, 'when')));
      if (on === negated) continue;
    }
    const items = block.repeat === undefined ? [undefined] : repeatItems(values.get(inputOf(block.repeat, blockName, 'repeat')), blockName);

    items.forEach((item, instance) => {
      const where = `${manifest.id}/blocks/${blockName}.json`;
      const lookup = (name: string): PlaceholderValue | undefined =>
        name.startsWith('item.') ? itemField(item, name.slice(5), instance, where) : values.scalar(name);
      const nodes = substitutePlaceholders(block.nodes, lookup, where) as Record<string, ApiNode>;
      const ids = new Map<string, string>();
      for (const local of Object.keys(nodes)) ids.set(local, String(nextId++));

      for (const [local, node] of Object.entries(nodes)) {
        for (const [name, value] of Object.entries(node.inputs)) {
          if (isLink(value)) node.inputs[name] = [ids.get(String(value[0]))!, value[1]];
        }
        graph[ids.get(local)!] = node;
        origins[ids.get(local)!] = { block: blockName, local, instance };
      }
      for (const [name, targets] of Object.entries(block.imports)) {
        const link = bus.get(name);
        for (const target of Array.isArray(targets) ? targets : [targets]) {
          const node = graph[ids.get(target.node)!]!;
          if (link) node.inputs[target.input] = [link[0], link[1]];
          else if (target.optional) delete node.inputs[target.input];
          else throw templateError(`block "${blockName}" imports "${name}", which no earlier block exports`);
        }
      }
      for (const [name, [local, slot]] of Object.entries(block.exports)) bus.set(name, [ids.get(local)!, slot]);
    });
  }

  applyBlockMappings(graph, origins, blocks, manifest, values.get);
  return { graph, origins };
}

/** Inputs with `block` + `node_id` + `field` set that node in every instance of the block. */
function applyBlockMappings(
  graph: ApiGraph,
  origins: Record<string, NodeOrigin>,
  blocks: Record<string, BlockTemplate>,
  manifest: WorkflowManifest,
  valueOf: (input: ManifestInput) => ParamValue,
): void {
  for (const input of manifest.inputs) {
    if (input.block === undefined || input.node_id === undefined || input.field === undefined) continue;
    const local = String(input.node_id);
    const block = blocks[input.block];
    if (!block) throw templateError(`input "${input.id}" targets block "${input.block}", which does not exist`);
    if (!block.nodes[local]) throw templateError(`input "${input.id}" targets node ${local}, which block "${input.block}" lacks`);
    for (const [id, origin] of Object.entries(origins)) {
      if (origin.block === input.block && origin.local === local) setMappedInput(graph, id, input.field, valueOf(input), input.id);
    }
  }
}

function repeatItems(value: ParamValue, blockName: string): unknown[] {
  if (!Array.isArray(value)) throw templateError(`block "${blockName}": repeat needs a list input`);
  return value;
}

/** `{{item.<field>}}` in a repeated block; `{{item.index}}` is the 0-based position. */
function itemField(item: unknown, field: string, index: number, where: string): PlaceholderValue {
  if (field === 'index') return index;
  if (item === null || typeof item !== 'object') throw templateError(`${where}: {{item.${field}}} used outside a repeat block`);
  const record = item as Record<string, unknown>;
  // A LoRA without its own clip strength uses the model strength, as the engine's loaders do.
  const value = field === 'strength_clip' && record.strength_clip === undefined ? record.strength : record[field];
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw templateError(`${where}: {{item.${field}}} has no value`);
}

function isTruthy(value: ParamValue): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return value !== false && value !== 0 && value !== '';
}
