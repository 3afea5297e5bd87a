/**
 * Error text for people: the engine's `[NodeType] message` and HTTP failures rewritten so a
 * user knows what went wrong and what to do.
 */
import { ApiError } from '../api/http.js';

/** `[LoadImage] Invalid image file: x.png` → a sentence naming the step and the reason. */
export function friendlyJobError(error: string | null | undefined): string {
  if (!error) return 'The job failed without a message from the engine.';
  const match = /^\[([^\]]+)\]\s*([\s\S]*)$/.exec(error.trim());
  if (!match) return error;
  const [, node, message] = match;
  const text = (message ?? '').trim() || 'no details';
  if (/out of memory|CUDA out of memory|OOM/i.test(text)) {
    return `The step “${node}” ran out of GPU memory. Try a smaller size, fewer frames or fewer steps. (${text})`;
  }
  if (/not found|no such file|does not exist/i.test(text)) {
    return `The step “${node}” could not find a file it needs: ${text}. Check that the required models are downloaded.`;
  }
  return `The step “${node}” failed: ${text}`;
}

/** Any thrown value as a message for a toast or an inline error. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 0) return err.detail;
    if (err.status === 503) return `Studio is busy (${err.detail}). Try again in a moment.`;
    if (err.status >= 500) return `Studio could not do that: ${err.detail}`;
    return err.detail;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * A refused run in words for the line under the Run button: past a quota (429) the server's words
 * say when the person can run again; outside their allow-list (403) they name the workflow or model.
 */
export function runErrorText(err: unknown): string {
  if (err instanceof ApiError && err.status === 429) return `Quota reached: ${err.detail}`;
  if (err instanceof ApiError && err.status === 403) return `Not allowed: ${err.detail}`;
  return errorText(err);
}

/** A refused run for the panel beside Run: the words, and the model files whose Download it offers. */
export interface RunRefusal {
  text: string;
  missingModels: string[];
}

/** The one place a run's failure becomes what the Run panel, a preset run and a batch show. */
export function runRefusal(err: unknown): RunRefusal {
  const body = err instanceof ApiError && err.body && typeof err.body === 'object' ? (err.body as { missing_models?: unknown }) : null;
  const missing = Array.isArray(body?.missing_models) ? body.missing_models.filter((f): f is string => typeof f === 'string') : [];
  return { text: runErrorText(err), missingModels: missing };
}
