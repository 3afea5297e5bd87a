/**
 * `POST /prompt` validation, following the engine's `validate_prompt` / `validate_inputs`:
 * unknown classes stop everything (`missing_node_type`); otherwise each output node is validated
 * with its upstream graph, bad outputs are dropped, and the prompt is refused only when no output
 * survives. Error types, messages and details copy the engine's so clients can show them as-is.
 */
import { checkValue, coerce, typesMatch } from './input-checks.js';
import { inputDefs, type ApiGraph, type InputDef, type NodeInfo, type PromptError } from './node-inputs.js';
import { fakeTraceback, pyRepr, pyStr, pyTypeName } from './py-format.js';

export interface NodeError {
  errors: PromptError[];
  dependent_outputs: string[];
  class_type: string;
}

export type ValidationResult =
  | { ok: true; graph: ApiGraph; outputs: string[]; nodeErrors: Record<string, NodeError> }
  | { ok: false; error: PromptError; nodeErrors: Record<string, NodeError> };

/** What validation reads of a node set: the stand-in's catalog, or Studio's view of an engine's `object_info`. */
export interface NodeLookup {
  /** The node's definition as recorded. */
  get(classType: string): NodeInfo | undefined;
  /** The node's definition with its file lists as they are now. */
  live(classType: string): NodeInfo | undefined;
  /** Whether a value missing from a file list is an error (the lists are the truth). */
  readonly checksFileLists: boolean;
}

export interface ValidatorDeps {
  catalog: NodeLookup;
  /** Whether a LoadImage-style value (`sub/x.png`, `x.png [output]`) names an existing file. */
  fileExists(annotatedName: string): boolean;
}

/** Inputs checked by a node's own `VALIDATE_INPUTS` (they skip the list/min/max checks). */
export const FILE_CHECKS: Readonly<Record<string, { input: string; what: string }>> = {
  LoadImage: { input: 'image', what: 'image' },
  LoadImageMask: { input: 'image', what: 'image' },
  VHS_LoadVideo: { input: 'video', what: 'video' },
  LoadVideo: { input: 'file', what: 'video' },
};

/** A Python exception raised while validating (a dangling link raises KeyError in the engine). */
class PyException extends Error {
  constructor(
    readonly pyType: string,
    readonly text: string,
  ) {
    super(text);
  }
}

type Verdict = { valid: boolean; reasons: PromptError[] };

/** Validate an API graph the way the engine does. Throws only when `prompt` is not an object (the engine answers 500). */
export function validatePrompt(rawGraph: unknown, deps: ValidatorDeps, partialTargets: unknown = undefined): ValidationResult {
  if (typeof rawGraph !== 'object' || rawGraph === null || Array.isArray(rawGraph)) {
    throw new TypeError('prompt must be an object');
  }
  // The engine coerces values in place and queues the coerced graph; work on a copy.
  const graph = structuredClone(rawGraph) as Record<string, unknown>;
  const targets = Array.isArray(partialTargets) ? new Set(partialTargets.map(String)) : null;
  const outputs: string[] = [];
  for (const [id, node] of Object.entries(graph)) {
    const missing = missingNodeType(id, node, deps.catalog);
    if (missing) return { ok: false, error: missing, nodeErrors: {} };
    const info = deps.catalog.get((node as { class_type: string }).class_type);
    if (info?.output_node === true && (targets === null || targets.has(id))) outputs.push(id);
  }
  if (outputs.length === 0) return promptError('prompt_no_outputs', 'Prompt has no outputs', {});

  const validator = new GraphValidator(graph as unknown as ApiGraph, deps);
  const good: string[] = [];
  const nodeErrors: Record<string, NodeError> = {};
  for (const output of outputs) {
    let verdict: Verdict;
    try {
      verdict = validator.validate(output);
    } catch (err) {
      const ex = asPyException(err);
      verdict = {
        valid: false,
        reasons: [
          {
            type: 'exception_during_validation',
            message: 'Exception when validating node',
            details: ex.text,
            extra_info: { exception_type: ex.pyType, traceback: fakeTraceback('validate_inputs', 'o_class_type = prompt[o_id]["class_type"]') },
          },
        ],
      };
      validator.validated.set(output, verdict);
    }
    if (verdict.valid) {
      good.push(output);
      continue;
    }
    // Downstream nodes of a broken node are invalid too but carry no reasons; only report the causes.
    // The engine appends every failing output to every broken node seen so far; the stand-in lists
    // only the outputs that really depend on the node.
    const upstream = upstreamOf(graph as unknown as ApiGraph, output);
    for (const [nodeId, result] of validator.validated) {
      if (result.valid || result.reasons.length === 0 || !upstream.has(nodeId)) continue;
      const entry = (nodeErrors[nodeId] ??= {
        errors: result.reasons,
        dependent_outputs: [],
        class_type: (graph[nodeId] as { class_type: string }).class_type,
      });
      entry.dependent_outputs.push(output);
    }
  }
  if (good.length === 0) return promptError('prompt_outputs_failed_validation', 'Prompt outputs failed validation', nodeErrors);
  return { ok: true, graph: graph as unknown as ApiGraph, outputs: good, nodeErrors };
}

/** A refusal of the whole prompt (its own error carries no details). */
function promptError(type: string, message: string, nodeErrors: Record<string, NodeError>): ValidationResult {
  return { ok: false, error: { type, message, details: '', extra_info: {} }, nodeErrors };
}

/** The node and every node it links to, transitively. */
function upstreamOf(graph: ApiGraph, id: string): Set<string> {
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    if (seen.has(current)) continue;
    seen.add(current);
    const inputs = graph[current]?.inputs;
    if (typeof inputs !== 'object' || inputs === null) continue;
    for (const value of Object.values(inputs)) {
      if (Array.isArray(value) && typeof value[0] === 'string' && Object.hasOwn(graph, value[0])) stack.push(value[0]);
    }
  }
  return seen;
}

function missingNodeType(id: string, node: unknown, catalog: NodeLookup): PromptError | null {
  const record = typeof node === 'object' && node !== null ? (node as Record<string, unknown>) : {};
  const meta = record._meta as { title?: unknown } | undefined;
  const classType = typeof record.class_type === 'string' ? record.class_type : null;
  const metaTitle = typeof meta?.title === 'string' ? meta.title : null;
  const title = metaTitle ?? classType ?? `ID #${id}`;
  if (classType !== null && catalog.get(classType)) return null;
  // Recorded from 0.29.0: without a class_type the message names `ID #n`, and node_title is the
  // _meta title or null.
  return {
    type: 'missing_node_type',
    message:
      classType === null
        ? `Node '${title}' has no class_type. The workflow may be corrupted or a custom node is missing.`
        : `Node '${title}' not found. The custom node may not be installed.`,
    details: `Node ID '#${id}'`,
    extra_info: { node_id: id, class_type: classType, node_title: classType === null ? metaTitle : title },
  };
}

class GraphValidator {
  readonly validated = new Map<string, Verdict>();
  private readonly inProgress = new Set<string>();

  constructor(
    private readonly graph: ApiGraph,
    private readonly deps: ValidatorDeps,
  ) {}

  /** `validate_inputs(id)`: may throw PyException, like the engine (a dangling link is a KeyError). */
  validate(id: string): Verdict {
    const known = this.validated.get(id);
    if (known) return known;
    // The engine recurses without a guard and dies with RecursionError on a cycle; say the same.
    if (this.inProgress.has(id)) throw new PyException('RecursionError', 'maximum recursion depth exceeded');
    this.inProgress.add(id);
    try {
      const verdict = this.check(id);
      // On a cycle, a downstream node already recorded why this one failed; keep that reason.
      const recorded = this.validated.get(id);
      if (recorded && recorded.reasons.length > 0 && verdict.reasons.length === 0) return recorded;
      this.validated.set(id, verdict);
      return verdict;
    } finally {
      this.inProgress.delete(id);
    }
  }

  private check(id: string): Verdict {
    const node = this.graph[id] as unknown as Record<string, unknown>;
    const inputs = node.inputs;
    if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) throw new PyException('KeyError', "'inputs'");
    const values = inputs as Record<string, unknown>;
    const classType = node.class_type as string;
    // Combos are checked against the lists as they are now (the engine calls INPUT_TYPES() again).
    const info = this.deps.catalog.live(classType) as NodeInfo;
    const fileCheck = FILE_CHECKS[classType];
    const errors: PromptError[] = [];
    let valid = true;

    for (const def of inputDefs(info)) {
      const config = [def.type, def.options];
      if (!Object.hasOwn(values, def.name)) {
        if (def.category === 'required') {
          errors.push({ type: 'required_input_missing', message: 'Required input is missing', details: def.name, extra_info: { input_name: def.name } });
        }
        continue;
      }
      const raw = values[def.name];
      if (Array.isArray(raw)) {
        if (!this.checkLink(def, raw, config, errors)) valid = false;
        continue;
      }
      const coerced = coerce(def, raw);
      if (!coerced.ok) {
        errors.push({
          type: 'invalid_input_type',
          message: `Failed to convert an input value to a ${pyStr(def.type)} value`,
          details: `${def.name}, ${pyStr(coerced.shown)}, ${coerced.error}`,
          extra_info: { input_name: def.name, input_config: config, received_value: coerced.shown, exception_message: coerced.error },
        });
        continue;
      }
      values[def.name] = coerced.value;
      if (fileCheck?.input === def.name) continue;
      const rangeError = checkValue(def, coerced.value, config, this.deps.catalog.checksFileLists);
      if (rangeError) errors.push(rangeError);
    }

    if (fileCheck && Object.hasOwn(values, fileCheck.input) && !Array.isArray(values[fileCheck.input])) {
      const name = pyStr(values[fileCheck.input]);
      if (!this.deps.fileExists(name)) {
        errors.push({
          type: 'custom_validation_failed',
          message: 'Custom validation failed for node',
          details: `${fileCheck.input} - Invalid ${fileCheck.what} file: ${name}`,
          extra_info: { input_name: fileCheck.input },
        });
      }
    }
    return { valid: valid && errors.length === 0, reasons: errors };
  }

  /**
   * Check a `[nodeId, slot]` link, recursing into the source node like the engine. False when the
   * source node is invalid (a problem with the link itself goes to `errors`).
   */
  private checkLink(def: InputDef, link: unknown[], config: unknown[], errors: PromptError[]): boolean {
    if (link.length !== 2) {
      errors.push({
        type: 'bad_linked_input',
        message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]',
        details: def.name,
        extra_info: { input_name: def.name, input_config: config, received_value: link },
      });
      return true;
    }
    const [sourceId, slot] = link;
    // Graph keys are strings; a numeric id is a KeyError in the engine too.
    if (typeof sourceId !== 'string' || !Object.hasOwn(this.graph, sourceId)) throw new PyException('KeyError', pyRepr(sourceId));
    const sourceInfo = this.deps.catalog.get(this.graph[sourceId]?.class_type ?? '') as NodeInfo;
    const returnTypes = sourceInfo.output ?? [];
    if (typeof slot !== 'number' || !Number.isInteger(slot)) {
      throw new PyException('TypeError', `tuple indices must be integers or slices, not ${pyTypeName(slot)}`);
    }
    const receivedType = returnTypes[slot < 0 ? returnTypes.length + slot : slot];
    if (receivedType === undefined) throw new PyException('IndexError', 'tuple index out of range');
    if (!typesMatch(receivedType, def.type)) {
      errors.push({
        type: 'return_type_mismatch',
        message: 'Return type mismatch between linked nodes',
        details: `${def.name}, received_type(${pyStr(receivedType)}) mismatch input_type(${pyStr(def.type)})`,
        extra_info: { input_name: def.name, input_config: config, received_type: receivedType, linked_node: link },
      });
      return true;
    }
    try {
      return this.validate(sourceId).valid;
    } catch (err) {
      const ex = asPyException(err);
      this.validated.set(sourceId, {
        valid: false,
        reasons: [
          {
            type: 'exception_during_inner_validation',
            message: 'Exception when validating inner node',
            details: ex.text,
            extra_info: {
              input_name: def.name,
              input_config: config,
              exception_message: ex.text,
              exception_type: ex.pyType,
              traceback: fakeTraceback('validate_inputs', 'r = validate_inputs(prompt, o_id, validated)'),
              linked_node: link,
            },
          },
        ],
      });
      return false;
    }
  }
}

function asPyException(err: unknown): PyException {
  if (err instanceof PyException) return err;
  return new PyException('Exception', err instanceof Error ? err.message : String(err));
}
