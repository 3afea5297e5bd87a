/**
 * Which workflows need a model file: the workflow list already carries each manifest's
 * `required_models` (the same list its readiness is computed from), so the Models page reads
 * "used by" from it instead of asking the server again.
 */

/** A workflow as the usage index needs it. */
export interface UsingWorkflow {
  id: string;
  name: string;
}

/** Model file → the workflows that require it, each list sorted by name. */
export function workflowsByModel(workflows: ReadonlyArray<{ id: string; name: string; required_models?: readonly string[] }>): Record<string, UsingWorkflow[]> {
  const out: Record<string, UsingWorkflow[]> = {};
  for (const wf of workflows) {
    for (const file of new Set(wf.required_models ?? [])) (out[file] ??= []).push({ id: wf.id, name: wf.name });
  }
  for (const list of Object.values(out)) list.sort((a, b) => a.name.localeCompare(b.name));
  return out;
}
