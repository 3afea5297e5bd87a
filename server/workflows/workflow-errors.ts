/**
 * Errors of graph building. They are `HttpError`s so the runner's routes can let them through
 * the error middleware as they are: bad form parameters are the client's 400, a broken template
 * or block is the spec's 500 "workflow assembly failure".
 */
import { HttpError } from '../http/errors.js';

/** A graph could not be built; `status` says whose fault it is (400 params, 500 template). */
export class WorkflowBuildError extends HttpError {
  override readonly name = 'WorkflowBuildError';
}

/** A form parameter is missing or has the wrong type or range (400). */
export function paramError(detail: string): WorkflowBuildError {
  return new WorkflowBuildError(400, detail);
}

/** The workflow's own files are inconsistent (500). */
export function templateError(detail: string): WorkflowBuildError {
  return new WorkflowBuildError(500, detail);
}
