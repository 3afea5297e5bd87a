/**
 * The one error shape. Services raise domain errors (`../domain-error.ts`) that the mapper in
 * `error-middleware.ts` turns into statuses; routes (and older services) throw `HttpError`;
 * nothing else writes `{"detail"}` bodies.
 */
import type { z } from 'zod';

/** An error that maps directly to an HTTP status and a `{"detail"}` body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    /** Extra structured fields sent beside `detail` (the engine's `error` and `node_errors`). */
    readonly body?: unknown,
  ) {
    super(detail);
  }
}

/** Parse `value` with a zod schema, or throw a 400 naming the first offending field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where = 'body'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new HttpError(400, describeZodError(result.error, where));
}

/** `body.api_key: Invalid input: expected string, received undefined` style detail. */
export function describeZodError(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid request ${where}`;
  const field = issue.path.length ? issue.path.map(String).join('.') : where;
  return `Invalid request ${where}: ${field}: ${issue.message}`;
}
