/**
 * `validate` answers a 400 whose detail names the field it is about, also when a schema words its
 * own messages (`ownMessages`) and zod's default message for a field names none.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate } from '../../../server/http/errors.js';

function detailOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('validate accepted what it should refuse');
}

describe('validate', () => {
  it('leads a message that does not name its field with the field', () => {
    const schema = z.object({ params: z.object({ seed: z.number() }) });
    expect(detailOf(() => validate(schema, { params: { seed: 'x' } }, { ownMessages: true }))).toMatch(/^params\.seed: /);
  });

  it('keeps a message that already names its field as it is', () => {
    const schema = z.object({ starred: z.boolean({ error: 'starred must be true or false' }) });
    expect(detailOf(() => validate(schema, { starred: 1 }, { ownMessages: true }))).toBe('starred must be true or false');
  });
});
