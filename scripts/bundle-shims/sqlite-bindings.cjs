// Stands in for `bindings` where better-sqlite3 calls it, in the server bundle
// (scripts/bundle-server.mjs). `bindings` finds an addon from the folder of the file that called
// it. Bundled, that file is dist/server/main.bundle.cjs, and the search would start in Studio's
// folder instead of better-sqlite3's. So the search is given better-sqlite3's own folder, found as
// a require from the bundle finds the package; the order of the places tried is bindings' own.
'use strict';
const path = require('node:path');
const bindings = require('bindings');

module.exports = (name) => bindings({ bindings: name, module_root: path.dirname(require.resolve('better-sqlite3/package.json')) });
