// The entry `npm start` runs (copied to dist/server/start.cjs by bundle-server.mjs): runs the
// one-file server bundle beside it with a V8 code cache. Why: compiling the bundle's functions is
// about a third of the start's CPU, and Node 20 keeps no cache of its own (Node 22's
// `module.enableCompileCache` does this). The first start compiles as usual and, once it has
// settled, writes the compiled code next to the bundle; later starts reuse it.
//
// The cache is keyed by the bundle's size and modification time (V8 itself checks only the
// source's length, its own version and flags: a rebuilt bundle of the same length must not get
// the old code), written to a temporary name and renamed, and simply not used when it cannot be
// read or written (a read-only install) or when V8 rejects it.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const bundle = path.join(__dirname, 'main.bundle.cjs');
/** After this long the start's code is compiled: what the cache holds. */
const WRITE_AFTER_MS = 2000;

function run() {
  // Stack traces through the source map need Node's own loader (`--enable-source-maps`).
  if (process.sourceMapsEnabled) return void require(bundle);
  const stat = fs.statSync(bundle);
  const cacheFile = `${bundle}.${stat.size}-${Math.trunc(stat.mtimeMs)}.v8-cache`;
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // No cache yet (the first start after a build): compile, and write one below.
  }
  // latin1: the bundle is ASCII (bundle-server.mjs checks), and reading it so skips UTF-8 decoding
  // (~2 ms of 2.4 MB; up to 10 at a start that also faults in its heap).
  const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, 'latin1')), {
    filename: bundle,
    cachedData,
    // No `import()` is left in the bundle (bundle-server.mjs turns them into require), so the
    // script needs no dynamic-import callback.
  });
  const mod = new Module(bundle, module);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(__dirname);
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, __dirname);
  mod.loaded = true;
  if (cachedData && !script.cachedDataRejected) return;
  setTimeout(() => writeCache(script, cacheFile), WRITE_AFTER_MS).unref();
}

function writeCache(script, cacheFile) {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, script.createCachedData());
    fs.renameSync(temp, cacheFile);
    const stale = path.basename(bundle) + '.';
    for (const name of fs.readdirSync(__dirname)) {
      if (name.startsWith(stale) && name.endsWith('.v8-cache') && path.join(__dirname, name) !== cacheFile) fs.rmSync(path.join(__dirname, name), { force: true });
    }
  } catch {
    fs.rmSync(temp, { force: true });
  }
}

run();
