/**
 * Errors of graph building, as domain errors: bad form parameters are the client's mistake
 * (`invalid`, a 400), a broken template or block is Studio's own data (`broken`, the spec's 500
 * "workflow assembly failure").
 */
import { DomainError } from '../domain-error.js';

/** A graph could not be built; `kind` says whose fault it is. */
export class WorkflowBuildError extends DomainError {
  override readonly name = 'WorkflowBuildError';
}

/** A form parameter is missing or has the wrong type or range. */
export function paramError(detail: string): WorkflowBuildError {
  return new WorkflowBuildError('invalid', detail);
}

/** The workflow's own files are inconsistent. */
export function templateError(detail: string): WorkflowBuildError {
  return new WorkflowBuildError('broken', detail);
}
