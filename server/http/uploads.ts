/**
 * Multipart uploads (multer, in memory). Images for the engine are small next to the 512 MB
 * cap, which only guards against a runaway client.
 */
import multer from 'multer';
import { HttpError } from './errors.js';

export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

/** A multer instance keeping files in memory. */
export function memoryUpload(): multer.Multer {
  return multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_UPLOAD_BYTES, files: 100, fieldSize: 10 * 1024 * 1024 } });
}

/** A multipart text field holding JSON that must be an object (e.g. `params`); `{}` when absent. */
export function jsonObjectField(value: unknown, name: string): Record<string, unknown> {
  if (value === undefined || value === '') return {};
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== 'string') throw new HttpError(400, `${name} must be a JSON object`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new HttpError(400, `${name} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new HttpError(400, `${name} must be a JSON object`);
  return parsed as Record<string, unknown>;
}
