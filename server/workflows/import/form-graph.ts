/**
 * A stored static workflow seen by the form editor: the fields a `{{id}}` placeholder fills, each
 * node's fields with the input that sets it, and the input the editor would add for any other
 * field. The stored graph's own text is escaped (`\{{x}}`), so values are shown unescaped.
 */
import type { FormNodeInfo, ManifestInput } from '../../contracts/workflows.contract.js';
import type { ApiGraph, ObjectInfo } from '../../engine/engine-graph.js';
import { literalText, wholePlaceholder } from '../placeholders.js';
import { byNodeId, humanize, inputFor, isSettable, targetKey, type InputTarget } from './input-from-spec.js';

/** Input id → the fields whose whole value is `{{id}}`. */
export function placeholderTargets(graph: ApiGraph): Map<string, InputTarget[]> {
  const targets = new Map<string, InputTarget[]>();
  for (const [node, apiNode] of Object.entries(graph)) {
    for (const [field, value] of Object.entries(apiNode.inputs)) {
      const name = typeof value === 'string' ? wholePlaceholder(value) : undefined;
      if (name !== undefined) targets.set(name, [...(targets.get(name) ?? []), { node, field }]);
    }
  }
  return targets;
}

/** The fields an input sets: its `node_id`/`field`, or the fields its placeholder fills. */
export function targetsOf(input: ManifestInput, placeholders: ReadonlyMap<string, InputTarget[]>): InputTarget[] {
  if (input.node_id !== undefined && input.field !== undefined) return [{ node: String(input.node_id), field: input.field }];
  return placeholders.get(input.id) ?? [];
}

/** Every node and field of the graph for the editor, in node id order. */
export function formNodes(graph: ApiGraph, inputs: ManifestInput[], objectInfo: ObjectInfo): FormNodeInfo[] {
  const placeholders = placeholderTargets(graph);
  const usedBy = new Map<string, string>();
  for (const input of inputs) for (const t of targetsOf(input, placeholders)) usedBy.set(targetKey(t), input.id);
  const literal = literalGraph(graph, inputs);
  const ids = Object.keys(graph).sort(byNodeId);
  return ids.map((node) => {
    const apiNode = graph[node]!;
    const fields = Object.entries(literal[node]!.inputs).map(([name, value]) => {
      const target = { node, field: name };
      const used = usedBy.get(targetKey(target));
      const settable = isSettable(literal, target);
      const suggested = settable && !used ? (inputFor(literal, objectInfo, target, suggestedId(node, name), `${humanize(name)} (${apiNode._meta?.title ?? apiNode.class_type})`) ?? undefined) : undefined;
      return { name, value, settable: settable && (used !== undefined || suggested !== undefined), ...(used ? { used_by: used } : {}), ...(suggested ? { suggested } : {}) };
    });
    return { id: node, class_type: apiNode.class_type, ...(apiNode._meta?.title ? { title: apiNode._meta.title } : {}), fields };
  });
}

/** The graph as it runs with the form's defaults left out: placeholders show their input's default, text unescaped. */
function literalGraph(graph: ApiGraph, inputs: ManifestInput[]): ApiGraph {
  const defaults = new Map(inputs.map((input) => [input.id, input.default]));
  const out: ApiGraph = structuredClone(graph);
  for (const apiNode of Object.values(out)) {
    for (const [field, value] of Object.entries(apiNode.inputs)) {
      if (typeof value !== 'string') continue;
      const name = wholePlaceholder(value);
      const fallback = name !== undefined ? defaults.get(name) : undefined;
      apiNode.inputs[field] = name !== undefined && fallback !== undefined && !Array.isArray(fallback) ? fallback : literalText(value);
    }
  }
  return out;
}

/** `node_<id>_<field>`, kept to identifier characters. */
function suggestedId(node: string, field: string): string {
  return `${field}_${node}`.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(?=\d)/, 'n');
}
