/**
 * A changed version of an imported workflow merged with the stored one. Nodes are the same node
 * when their id and class match (the engine's editor keeps ids across edits). The user's form is
 * kept wherever its fields still exist: an input survives with its label, default, limits and
 * place when at least one field it sets is still there and settable; inputs whose node vanished,
 * changed class or whose field is now linked are dropped and named. Inputs the new version's
 * proposal makes are added only for nodes the new version adds (a proposal the user removed
 * before does not come back). The result says what changed in the graph and in the form.
 */
import type { ManifestInput, ReimportDiff } from '../../contracts/workflows.contract.js';
import type { ApiGraph } from '../../engine/engine-graph.js';
import { escapePlaceholders, wholePlaceholder } from '../placeholders.js';
import { placeholderTargets, targetsOf } from './form-graph.js';
import { byNodeId, isSettable, targetKey, type InputTarget } from './input-from-spec.js';
import type { ProposedForm } from './propose-form.js';

export interface MergedVersion {
  graph: ApiGraph;
  inputs: ManifestInput[];
  diff: ReimportDiff;
}

/** Merge the stored `oldGraph`/`oldInputs` with the new version's proposed form. */
export function mergeReimport(oldGraph: ApiGraph, oldInputs: ManifestInput[], proposal: ProposedForm): MergedVersion {
  const graph = structuredClone(proposal.graph);
  // The proposal's own placeholders are undone first: the merged form decides which stay.
  for (const written of proposal.placeholders.values()) {
    for (const { target, value } of written) graph[target.node]!.inputs[target.field] = typeof value === 'string' ? escapePlaceholders(value) : value;
  }
  const same = (node: string) => oldGraph[node] !== undefined && graph[node] !== undefined && oldGraph[node]!.class_type === graph[node]!.class_type;
  const claimed = new Set<string>();
  const inputs: ManifestInput[] = [];
  const diff: ReimportDiff = { ...graphDiff(oldGraph, graph, same), inputs_kept: [], inputs_dropped: [], inputs_added: [] };

  const oldTargets = placeholderTargets(oldGraph);
  for (const input of oldInputs) {
    const targets = targetsOf(input, oldTargets);
    const alive = targets.filter((t) => same(t.node) && isSettable(graph, t));
    if (targets.length > 0 && alive.length === 0) {
      diff.inputs_dropped.push({ id: input.id, label: input.label ?? input.id, reason: whyDropped(oldGraph, graph, targets[0]!) });
      continue;
    }
    if (input.node_id === undefined) for (const t of alive) graph[t.node]!.inputs[t.field] = `{{${input.id}}}`;
    for (const t of alive) claimed.add(targetKey(t));
    inputs.push(input);
    diff.inputs_kept.push(input.id);
  }

  const ids = new Set(inputs.map((input) => input.id));
  for (const proposed of proposal.inputs) {
    const targets = targetsOf(proposed, new Map([...proposal.placeholders].map(([id, list]) => [id, list.map((w) => w.target)])));
    if (targets.length === 0 || targets.some((t) => same(t.node) || claimed.has(targetKey(t)))) continue;
    let id = proposed.id;
    for (let n = 2; ids.has(id); n++) id = `${proposed.id}_${n}`;
    ids.add(id);
    if (proposed.node_id === undefined) for (const t of targets) graph[t.node]!.inputs[t.field] = `{{${id}}}`;
    for (const t of targets) claimed.add(targetKey(t));
    inputs.push({ ...proposed, id });
    diff.inputs_added.push(id);
  }
  return { graph, inputs, diff };
}

function whyDropped(oldGraph: ApiGraph, graph: ApiGraph, target: InputTarget): string {
  const before = oldGraph[target.node];
  const now = graph[target.node];
  if (!now) return `node ${target.node} (${before?.class_type ?? '?'}) is gone`;
  if (before && now.class_type !== before.class_type) return `node ${target.node} is now a ${now.class_type}, not a ${before.class_type}`;
  if (now.inputs[target.field] === undefined) return `node ${target.node} has no "${target.field}" any more`;
  return `node ${target.node}'s "${target.field}" is now linked to another node`;
}

function graphDiff(oldGraph: ApiGraph, graph: ApiGraph, same: (node: string) => boolean): Pick<ReimportDiff, 'nodes_added' | 'nodes_removed' | 'nodes_changed'> {
  const order = (ids: string[]) => ids.sort(byNodeId);
  const nodes_added = order(Object.keys(graph).filter((id) => !same(id))).map((id) => ({ id, class_type: graph[id]!.class_type }));
  const nodes_removed = order(Object.keys(oldGraph).filter((id) => !same(id))).map((id) => ({ id, class_type: oldGraph[id]!.class_type }));
  const nodes_changed = order(Object.keys(graph).filter(same)).flatMap((id) => {
    const before = oldGraph[id]!.inputs;
    const now = graph[id]!.inputs;
    const fields = [...new Set([...Object.keys(before), ...Object.keys(now)])].filter((field) => {
      // A field the stored form filled through a placeholder has no stored value to compare.
      if (typeof before[field] === 'string' && wholePlaceholder(before[field]) !== undefined) return false;
      return JSON.stringify(before[field]) !== JSON.stringify(now[field]);
    });
    return fields.length > 0 ? [{ id, class_type: graph[id]!.class_type, fields: fields.sort() }] : [];
  });
  return { nodes_added, nodes_removed, nodes_changed };
}
