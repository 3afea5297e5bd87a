/**
 * Field schemas several routes share: multipart text fields, which arrive as strings (or as an
 * array when a client sends one twice), and JSON objects sent inside them. Each failure carries
 * its own wording, so routes validate them with `ownMessages`.
 */
import { z } from 'zod';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field holding a JSON object (e.g. `params`), as text or already parsed; `{}` when absent or empty. */
export function jsonObjectText(name: string) {
  // `.optional()` first: zod refuses a missing key before a bare transform can default it.
  return z.unknown().optional().transform((value, ctx): Record<string, unknown> => {
    if (value === undefined || value === '') return {};
    if (isObject(value)) return value;
    if (typeof value !== 'string') {
      ctx.addIssue({ code: 'custom', message: `${name} must be a JSON object` });
      return z.NEVER;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `${name} is not valid JSON: ${(err as Error).message}` });
      return z.NEVER;
    }
    if (isObject(parsed)) return parsed;
    ctx.addIssue({ code: 'custom', message: `${name} must be a JSON object` });
    return z.NEVER;
  });
}

/** An optional multipart text field that must be sent at most once. */
export function textOnce(name: string) {
  return z.string({ error: `${name} must be sent once, as text` }).optional();
}
