import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { lazySchema } from '../../../server/contracts/lazy-schema.js';

describe('lazySchema', () => {
  it('builds the schema on first use, once', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.object({ name: z.string().min(1) });
    });
    expect(builds).toBe(0);
    expect(schema.parse({ name: 'a' })).toEqual({ name: 'a' });
    expect(schema.safeParse({ name: '' }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('answers as the schema it stands for: nested, extended, checked with instanceof, same errors', () => {
    const inner = lazySchema(() => z.object({ id: z.number().int() }));
    const outer = lazySchema(() => z.object({ items: z.array(inner), tag: z.enum(['a', 'b']).optional() }));
    expect(outer.parse({ items: [{ id: 1 }] })).toEqual({ items: [{ id: 1 }] });
    expect(inner).toBeInstanceOf(z.ZodObject);
    expect(Object.keys(inner.shape)).toEqual(['id']);
    expect(inner.extend({ more: z.string() }).parse({ id: 2, more: 'x' })).toEqual({ id: 2, more: 'x' });
    const eager = z.object({ items: z.array(z.object({ id: z.number().int() })), tag: z.enum(['a', 'b']).optional() });
    const bad = { items: [{ id: 1.5 }], tag: 'c' };
    expect(outer.safeParse(bad).error?.issues).toEqual(eager.safeParse(bad).error?.issues);
    // Methods read off the stand-in work detached, as zod's own bound methods do.
    const { safeParse } = inner;
    expect(safeParse({ id: 3 }).success).toBe(true);
  });

  it('is built when its module loads only if that module uses it then', () => {
    let builds = 0;
    const base = lazySchema(() => {
      builds++;
      return z.object({ a: z.string() });
    });
    const derived = lazySchema(() => base.extend({ b: z.string() }));
    expect(builds).toBe(0);
    expect(derived.parse({ a: '1', b: '2' })).toEqual({ a: '1', b: '2' });
    expect(builds).toBe(1);
  });
});
