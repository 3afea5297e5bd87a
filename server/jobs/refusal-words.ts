/**
 * A refused prompt in words. The engine's 400 names node ids, Python reprs and error types
 * ("Prompt outputs failed validation … [CheckpointLoaderSimple] node 4: ckpt_name: 'x' not in
 * [...]"); a person needs "the model x is missing". This is the one rule that turns the engine's
 * `node_errors` into the sentence every run path shows (Run, presets, batches, a queued job's
 * hand-over); the engine's own body still travels beside it for API clients.
 */
import { EngineValidationError } from '../engine/engine-errors.js';
import type { EngineValidationBody } from '../engine/engine-protocol.js';
import { isModelFileName } from '../media-types.js';


export interface RefusalInWords {
  /** Sentences for the line under the Run button. */
  detail: string;
  /** Model files the engine does not have (the page offers their downloads). */
  missing_models: string[];
}

/** The step as the engine names it (its class), quoted. */
function stepName(classType: string | undefined): string {
  return classType ? `“${classType}”` : 'a step';
}

function valueText(value: unknown): string {
  return typeof value === 'string' ? `“${value}”` : JSON.stringify(value);
}

/** One engine input error as a sentence; a missing model file goes to `missing` instead. */
function sentence(err: EngineValidationBody['node_errors'][string]['errors'][number], classType: string | undefined, missing: Set<string>): string | null {
  const info = err.extra_info ?? {};
  const input = typeof info.input_name === 'string' ? info.input_name : null;
  const received = info.received_value;
  switch (err.type) {
    case 'value_not_in_list':
      if (typeof received === 'string' && isModelFileName(received)) {
        missing.add(received);
        return null;
      }
      return `The setting “${input ?? '?'}” of ${stepName(classType)} cannot be ${valueText(received)}: the engine does not offer it.`;
    case 'value_smaller_than_min': {
      const min = /min of (\S+)/.exec(err.message)?.[1];
      return `The setting “${input ?? '?'}” is too small${min ? `: the least it takes is ${min}` : ''}.`;
    }
    case 'value_bigger_than_max': {
      const max = /max of (\S+)/.exec(err.message)?.[1];
      return `The setting “${input ?? '?'}” is too large${max ? `: the most it takes is ${max}` : ''}.`;
    }
    case 'required_input_missing':
      return `The step ${stepName(classType)} lacks its input “${input ?? '?'}”.`;
    case 'custom_validation_failed': {
      // LoadImage and friends: "image - Invalid image file: x.png" (the engine names the file only in details).
      const file = /Invalid \w+ file: (.+)$/.exec(err.details ?? '')?.[1];
      if (!file) return `The step ${stepName(classType)} refused its input “${input ?? '?'}”.`;
      return `The input file “${file}” is not there any more: pick or upload it again.`;
    }
    case 'invalid_input_type':
      return `The setting “${input ?? '?'}” of ${stepName(classType)} has a value of the wrong kind.`;
    default:
      return `The step ${stepName(classType)} refused ${input ? `the setting “${input}”` : 'its inputs'}.`;
  }
}

/** The refusal as sentences, and the model files it says are missing. */
export function refusalInWords(body: EngineValidationBody): RefusalInWords {
  const missing = new Set<string>();
  const lines: string[] = [];
  for (const node of Object.values(body.node_errors)) {
    for (const err of node.errors) {
      const line = sentence(err, node.class_type, missing);
      if (line && !lines.includes(line)) lines.push(line);
    }
  }
  const models = [...missing];
  if (models.length === 1) lines.unshift(`The model ${models[0]} is missing: download it, then run again.`);
  if (models.length > 1) lines.unshift(`These models are missing: ${models.join(', ')}. Download them, then run again.`);
  if (lines.length === 0) lines.push(topLine(body.error));
  return { detail: `This job cannot run. ${lines.join(' ')}`, missing_models: models };
}

/** A refusal with no node errors: the whole prompt (an unknown node type, no output node). */
function topLine(error: EngineValidationBody['error']): string {
  if (error.type === 'missing_node_type') {
    const node = /Node '([^']+)'/.exec(error.message)?.[1] ?? (typeof error.extra_info?.class_type === 'string' ? error.extra_info.class_type : null);
    return `It uses a node type the engine does not have${node ? ` (${node})` : ''}: install its node package on the Nodes page.`;
  }
  if (error.type === 'prompt_no_outputs') return 'It has no step that saves a result.';
  return 'The engine refused it without saying which setting is wrong.';
}

/** The error a refused run answers with: the words as its detail, the engine's body and the missing models beside them. */
export function refusedRun(body: EngineValidationBody, also?: string): EngineValidationError {
  const words = refusalInWords(body);
  return new EngineValidationError(body, { detail: also ? `${words.detail} ${also}` : words.detail, missing_models: words.missing_models });
}
