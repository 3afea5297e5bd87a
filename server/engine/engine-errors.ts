/**
 * What the engine client raises. Domain errors, not HTTP ones: the error middleware maps the
 * kinds (an unreachable engine and an unexpected answer are the spec's runner 500s, a rejected
 * prompt is the client's 400 with the engine's `error` and `node_errors` beside the detail).
 */
import { DomainError } from '../domain-error.js';
import type { EngineNodeErrors, EngineValidationBody } from './engine-protocol.js';

/** Base of the engine client's errors. */
export class EngineError extends DomainError {}

/** The engine did not answer (refused, reset, timed out). */
export class EngineUnreachableError extends EngineError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super('unreachable', `Engine unreachable (${path}): ${reason}`);
  }
}

/** The engine answered with a status or body this client did not expect. */
export class EngineHttpError extends EngineError {
  constructor(
    readonly path: string,
    readonly engineStatus: number,
    readonly engineBody: string,
  ) {
    super('upstream', `Engine error on ${path}: HTTP ${engineStatus}${engineBody ? `: ${engineBody.slice(0, 500)}` : ''}`);
  }
}

/** `POST /prompt` answered 400. The message names every node error; the engine's own body travels beside it. */
export class EngineValidationError extends EngineError {
  /**
   * `words`: the refusal as a person reads it (Studio's runner says it so), with the models it
   * misses; without it the message is the engine's own summary. The engine's body stays as it was
   * (the engine API's door answers with exactly that).
   */
  constructor(
    readonly engineBody: EngineValidationBody,
    words?: { detail: string; missing_models: string[] },
  ) {
    super('rejected', words?.detail ?? summarizeValidation(engineBody), { error: engineBody.error, node_errors: engineBody.node_errors, ...(words ? { missing_models: words.missing_models } : {}) });
  }

  /** The engine's per-node errors (`{}` when the whole prompt was refused). */
  get nodeErrors(): EngineNodeErrors {
    return this.engineBody.node_errors;
  }
}

/** Readable summary of a validation body: the top error, then `[NodeType] node <id>: <input>: <message>` lines. */
function summarizeValidation(body: EngineValidationBody): string {
  const top = body.error.message || body.error.type || 'Prompt rejected';
  const lines = [body.error.details ? `${top}: ${body.error.details}` : top];
  for (const [nodeId, node] of Object.entries(body.node_errors)) {
    for (const err of node.errors) {
      const input = err.extra_info?.input_name;
      const detail = err.details ? ` (${err.details})` : '';
      lines.push(`[${node.class_type ?? 'unknown'}] node ${nodeId}: ${input ? `${input}: ` : ''}${err.message}${detail}`);
    }
  }
  return lines.join('\n');
}

/**
 * Studio already knows the engine cannot answer (its watch finds it unreachable, it crashed or
 * is restarting): the call is not made, or is cut short, instead of waiting out a timeout.
 */
export class EngineUnavailableError extends EngineError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super('unavailable', reason);
  }
}
