/**
 * The server bundle's stand-in for `depd` (scripts/bundle-shims/depd.cjs): a deprecated form still
 * warns, once per message, as a Node DeprecationWarning naming the library, so `--no-deprecation`
 * and `--throw-deprecation` keep working.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';

const depd = createRequire(import.meta.url)(path.resolve('scripts/bundle-shims/depd.cjs')) as (namespace: string) => {
  (message: string): void;
  function<T extends (...args: never[]) => unknown>(fn: T, message?: string): T;
  property(object: object, property: string, message?: string): void;
};

afterEach(() => vi.restoreAllMocks());

it('warns once per message, as a DeprecationWarning naming the library', () => {
  const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
  const deprecate = depd('router');
  deprecate('handlers that are Promise-like are deprecated');
  deprecate('handlers that are Promise-like are deprecated');
  deprecate('another form');
  expect(emit.mock.calls).toEqual([
    ['router deprecated handlers that are Promise-like are deprecated', 'DeprecationWarning'],
    ['router deprecated another form', 'DeprecationWarning'],
  ]);
});

it('wraps a deprecated function and property, which still work', () => {
  const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
  const deprecate = depd('lib');
  const add = deprecate.function((a: number, b: number) => a + b, 'add()');
  expect(add(2, 3)).toBe(5);
  const object = { size: 1 };
  deprecate.property(object, 'size', 'size');
  expect(object.size).toBe(1);
  object.size = 4;
  expect(object.size).toBe(4);
  expect(emit.mock.calls.map((call) => call[0])).toEqual(['lib deprecated add()', 'lib deprecated size']);
});

it('stays silent under --no-deprecation, as Node does for its own warnings', async () => {
  const warnings: string[] = [];
  const listen = (warning: Error) => warnings.push(warning.message);
  process.on('warning', listen);
  const before = process.noDeprecation;
  try {
    process.noDeprecation = true;
    depd('quiet')('a deprecated form');
    await new Promise((resolve) => setImmediate(resolve));
    process.noDeprecation = false;
    depd('loud')('a deprecated form');
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.noDeprecation = before;
    process.off('warning', listen);
  }
  expect(warnings).toEqual(['loud deprecated a deprecated form']);
});
