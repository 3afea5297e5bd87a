/**
 * The one error shape. Services raise domain errors (`../domain-error.ts`) that the mapper in
 * `error-middleware.ts` turns into statuses; only the HTTP layer itself (`validate`, sign-in,
 * file answers) throws `HttpError` (lint keeps it out of capabilities);
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

/** How `validate` words a failure. */
export interface ValidateOptions {
  /** What was parsed, named in the default detail: `body` (the default), `query`, a field name. */
  where?: string;
  /** A fixed detail for any failure (a route whose wording the spec or the tests pin). */
  detail?: string;
  /** The first issue's own message is the detail: for schemas that word each failure themselves. */
  ownMessages?: boolean;
  /** The detail when the value is not an object at all (no body, an array, a string). */
  notObject?: string;
}

/**
 * The one way a route checks what it was sent: parse `value` (a body, a query, a field) with its
 * zod schema from `server/contracts/`, or throw a 400 naming the first offending field.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, options: string | ValidateOptions = 'body'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { where = 'body', detail, ownMessages, notObject } = typeof options === 'string' ? { where: options } : options;
  const first = result.error.issues[0];
  if (notObject && first?.code === 'invalid_type' && first.path.length === 0) throw new HttpError(400, notObject);
  if (ownMessages && first) throw new HttpError(400, namingField(first));
  throw new HttpError(400, detail ?? describeZodError(result.error, where));
}

/** A schema's own message, led by the field it is about when the message does not name it. */
function namingField(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  return field === '' || issue.message.includes(field) ? issue.message : `${field}: ${issue.message}`;
}

/** `body.api_key: Invalid input: expected string, received undefined` style detail. */
export function describeZodError(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid request ${where}`;
  const field = issue.path.length ? issue.path.map(String).join('.') : where;
  return `Invalid request ${where}: ${field}: ${issue.message}`;
}
