// Stands in for the `depd` package in the server bundle (scripts/bundle-server.mjs). Express,
// its router and http-errors each make a deprecation logger at load. depd finds the file of the
// library asking by capturing a stack trace with positions, and in the bundle the first capture
// makes V8 compute line positions over the whole bundle: ~4-5 ms of the start (profiled, #29),
// for loggers that print only when a deprecated form is used. Here a logger warns once per
// message through Node's own warnings, which keep `--no-deprecation`, `--trace-deprecation` and
// `--throw-deprecation`; the warning names the library, not the caller's file and line.
'use strict';

module.exports = function depd(namespace) {
  const warned = new Set();
  function deprecate(message) {
    if (warned.has(message)) return;
    warned.add(message);
    process.emitWarning(`${namespace} deprecated ${message}`, 'DeprecationWarning');
  }
  deprecate.function = (fn, message) =>
    function deprecated(...args) {
      deprecate(message || `${fn.name || 'function'}`);
      return fn.apply(this, args);
    };
  deprecate.property = (object, property, message) => {
    const descriptor = Object.getOwnPropertyDescriptor(object, property);
    if (!descriptor || !descriptor.configurable) return;
    let value = descriptor.value;
    const warn = () => deprecate(message || String(property));
    Object.defineProperty(object, property, {
      configurable: true,
      enumerable: descriptor.enumerable,
      get: descriptor.get ? function () { warn(); return descriptor.get.call(this); } : () => (warn(), value),
      set: descriptor.set ? function (v) { warn(); descriptor.set.call(this, v); } : descriptor.writable ? (v) => (warn(), (value = v)) : undefined,
    });
  };
  return deprecate;
};
