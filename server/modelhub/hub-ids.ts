/**
 * Path ids of the model hub routes: hub ids are positive integers. Anything else is a 400 that
 * names the parameter, before any call goes out.
 */
import { DomainError } from '../domain-error.js';

/** `value` as a positive safe integer, or a 400 naming `name`. */
export function hubId(value: unknown, name: string): number {
  const text = typeof value === 'string' ? value : '';
  const id = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError('invalid', `${name} must be a positive integer (got "${text.slice(0, 40)}")`);
  return id;
}
