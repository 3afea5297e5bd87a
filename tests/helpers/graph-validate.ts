/**
 * For tests of the graph builders: a check of an API graph against the engine's node schemas
 * without starting an engine (Studio itself validates with `engine/prompt-precheck.ts`), mirroring the checks
 * the engine runs on `POST /prompt` (issue names follow its `errors[].type`). Combo values
 * that are not in the engine's list are warnings only: model and image lists depend on what
 * is on disk.
 */
import { type ApiGraph, type InputSpec, isLink, type ObjectInfo } from '../../server/engine/engine-graph.js';

export interface GraphIssue {
  node_id: string;
  class_type: string;
  input?: string;
  type:
    | 'missing_node_type'
    | 'required_input_missing'
    | 'bad_linked_input'
    | 'return_type_mismatch'
    | 'invalid_input_type'
    | 'value_smaller_than_min'
    | 'value_bigger_than_max'
    | 'value_not_in_list'
    | 'unknown_input';
  severity: 'error' | 'warning';
  message: string;
}

/** Every problem the engine would reject (errors) or might reject (warnings). */
export function validateApiGraph(graph: ApiGraph, objectInfo: ObjectInfo): GraphIssue[] {
  const issues: GraphIssue[] = [];
  for (const [id, node] of Object.entries(graph)) {
    const add = (type: GraphIssue['type'], message: string, input?: string, severity: GraphIssue['severity'] = 'error') =>
      issues.push({ node_id: id, class_type: node.class_type, ...(input ? { input } : {}), type, severity, message });
    const def = objectInfo[node.class_type];
    if (!def) {
      add('missing_node_type', `unknown node type ${node.class_type}`);
      continue;
    }
    const required = def.input?.required ?? {};
    const optional = def.input?.optional ?? {};
    for (const name of Object.keys(required)) {
      if (node.inputs[name] === undefined) add('required_input_missing', `required input ${name} is missing`, name);
    }
    const extras = formatExtras(node.inputs, { ...optional, ...required });
    for (const [name, value] of Object.entries(node.inputs)) {
      const spec = required[name] ?? optional[name] ?? extras.get(name);
      if (!spec) {
        if (def.input?.hidden?.[name] === undefined) add('unknown_input', `input ${name} is not declared`, name, 'warning');
        continue;
      }
      if (isLink(value)) {
        const source = graph[String(value[0])];
        if (!source) {
          add('bad_linked_input', `links to missing node ${String(value[0])}`, name);
          continue;
        }
        const sourceDef = objectInfo[source.class_type];
        if (!sourceDef) continue;
        const produced = sourceDef.output?.[value[1]];
        if (produced === undefined) add('bad_linked_input', `node ${String(value[0])} has no output ${value[1]}`, name);
        else if (!typesMatch(spec[0], produced)) {
          add('return_type_mismatch', `expects ${typeName(spec[0])}, gets ${typeName(produced)}`, name);
        }
        continue;
      }
      checkLiteral(spec, value, (type, message, severity) => add(type, message, name, severity));
    }
  }
  return issues;
}

/**
 * Extra widgets a combo's current choice adds (VHS: `format: ["video/h264-mp4", …]` with
 * `formats: {"video/h264-mp4": [["pix_fmt", [choices]], ["crf", "INT", {…}], …]}`).
 */
function formatExtras(inputs: Record<string, unknown>, specs: Record<string, InputSpec>): Map<string, InputSpec> {
  const out = new Map<string, InputSpec>();
  for (const [name, spec] of Object.entries(specs)) {
    const formats = spec[1]?.formats;
    const chosen = inputs[name];
    if (formats === null || typeof formats !== 'object' || typeof chosen !== 'string') continue;
    const widgets = (formats as Record<string, unknown>)[chosen];
    if (!Array.isArray(widgets)) continue;
    for (const widget of widgets) {
      if (!Array.isArray(widget) || typeof widget[0] !== 'string') continue;
      const [widgetName, type, options] = widget as [string, string | string[], InputSpec[1]?];
      out.set(widgetName, options ? [type, options] : [type]);
    }
  }
  return out;
}

function checkLiteral(
  spec: InputSpec,
  value: unknown,
  add: (type: GraphIssue['type'], message: string, severity?: GraphIssue['severity']) => void,
): void {
  const [type, options] = spec;
  const choices = Array.isArray(type) ? type : type === 'COMBO' ? options?.options : undefined;
  if (choices) {
    if (!choices.includes(value)) add('value_not_in_list', `${JSON.stringify(value)} is not in the list`, 'warning');
    return;
  }
  switch (type) {
    case 'INT':
    case 'FLOAT':
      if (typeof value !== 'number' || (type === 'INT' && !Number.isInteger(value))) {
        add('invalid_input_type', `expects ${type}, got ${JSON.stringify(value)}`);
        return;
      }
      if (typeof options?.min === 'number' && value < options.min) add('value_smaller_than_min', `${value} < min ${options.min}`);
      if (typeof options?.max === 'number' && value > options.max) add('value_bigger_than_max', `${value} > max ${options.max}`);
      return;
    case 'STRING':
      if (typeof value !== 'string') add('invalid_input_type', `expects STRING, got ${JSON.stringify(value)}`);
      return;
    case 'BOOLEAN':
      if (typeof value !== 'boolean') add('invalid_input_type', `expects BOOLEAN, got ${JSON.stringify(value)}`);
      return;
    default:
      add('invalid_input_type', `${type} input needs a link, got a literal`);
  }
}

/** The engine's rule: `*` matches anything; comma-separated types match when they share one. */
function typesMatch(expected: string | string[], produced: string | string[]): boolean {
  if (Array.isArray(expected)) return Array.isArray(produced) || produced === 'COMBO' || produced === '*';
  if (Array.isArray(produced)) return expected === 'COMBO' || expected === '*';
  if (expected === '*' || produced === '*') return true;
  const wanted = new Set(expected.split(','));
  return produced.split(',').some((type) => wanted.has(type));
}

function typeName(type: string | string[]): string {
  return Array.isArray(type) ? 'COMBO' : type;
}
