// Stands in for the `debug` package in the server bundle (scripts/bundle-server.mjs). Express and
// its parts (router, body-parser, finalhandler, send) each make a `debug` logger at load and print
// through it only when the DEBUG environment variable names them. Loading `debug` itself
// (supports-color, tty checks, a scan of the environment) was ~6% of the start's CPU, spent on
// loggers that print nothing. So: with DEBUG set the real package is loaded, exactly as before;
// without it, every logger is one function that does nothing.
'use strict';
if (process.env.DEBUG) {
  module.exports = require('debug');
} else {
  const quiet = Object.assign(() => {}, { enabled: false, namespace: '' });
  quiet.extend = () => quiet;
  const createDebug = () => quiet;
  Object.assign(createDebug, { enabled: () => false, enable() {}, disable: () => '', names: [], skips: [], formatters: {} });
  createDebug.debug = createDebug.default = createDebug;
  module.exports = createDebug;
}
