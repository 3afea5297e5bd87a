/**
 * A schema built the first time it is used rather than when its module loads. Why (measured for
 * issue 29): the server's modules declare ~120 schemas at their top level, ~1 400 zod objects
 * with their checks, built one by one at every start (~20 ms, a tenth of the start's CPU, and
 * young-generation garbage) although a start uses few of them; most wait for a request of their
 * route. Behind this stand-in a schema is built on first use, once, and then answers as itself:
 * every property read (`parse`, `safeParse`, `shape`, `_zod`, …) goes to the built schema, with
 * `this` bound to it, so zod (nesting it in another schema, `instanceof`) sees no difference.
 *
 * Used for top-level `const`s only (`const jobSchema = lazySchema(() => z.object({…}))`); a
 * schema made inside a function is built when that runs anyway.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => {
      const built = schema();
      return Reflect.get(built, key, built);
    },
    has: (_, key) => Reflect.has(schema(), key),
    set: (_, key, value) => {
      const built = schema();
      return Reflect.set(built, key, value, built);
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
    ownKeys: () => Reflect.ownKeys(schema()),
    // The stand-in's own target is empty and extensible: a property reported from the schema must
    // be configurable, or the Proxy invariants throw.
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(schema(), key);
      return found && { ...found, configurable: true };
    },
    defineProperty: (_, key, attributes) => Reflect.defineProperty(schema(), key, attributes),
    deleteProperty: (_, key) => Reflect.deleteProperty(schema(), key),
  });
}
