// Bundles the compiled headless server (`dist/server/main.js`, tsc's output) into one CommonJS
// file, `dist/server/main.bundle.cjs`, and puts the small entry `npm start` runs beside it,
// `dist/server/start.cjs` (scripts/server-entry.cjs: it runs the bundle with a V8 code cache).
//
// Why each choice (CPU until `/api/health` answers, then idle RSS; `npm run bench -- startup`):
// - One file: Node pays per module it loads (resolve, read, compile), and the start loads ~360 of
//   Studio's own and ~500 of its libraries'.
// - The pure-JavaScript libraries the start needs (express, zod, ws, electron-log, better-sqlite3's
//   JavaScript, …) are bundled too, for the same reason. Left outside, in node_modules: native
//   addons (found next to their own files), the libraries Studio loads on first use (`import()`),
//   so they stay unloaded, and those Express's parts use only in a request (`firstUse`).
// - CommonJS, not an ES module: Node 20 can cache the compiled code of a script (vm.Script's
//   cachedData) but not of a module; the entry does that. ESM's loader also costs more per start.
// - Each `node:` builtin is turned into an ES-module view once (`builtinsOnce`): esbuild otherwise
//   copies a builtin's whole export object for every one of Studio's modules that imports it
//   (~290 copies, ~25 ms of start CPU and ~2 MiB).
// - `debug`, which Express's parts load for loggers that print only under DEBUG, is loaded only
//   when DEBUG is set, and `depd` is a lighter stand-in (`shims`); mime-types and others on the
//   first request that needs them (`firstUse`); zod is set up when the first schema is built
//   (`zodOnFirstUse`), with its error messages in English only.
// - ASCII only, whitespace and syntax minified (names kept, for stack traces): V8 holds the source
//   in memory, and one non-Latin-1 character makes it twice the size (UTF-16).
// The download worker and the stand-in engine stay tsc's separate files: they run in their own
// thread or process and are found from the app root (server/config/app-root.ts). The linked
// source map chains back to the .ts files through tsc's maps; Node uses it with
// `--enable-source-maps` (off in `npm start`, see start.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle's file name, beside tsc's `main.js`. */
export const BUNDLE_NAME = 'main.bundle.cjs';
/** What `npm start` runs: the bundle through its code cache. */
export const ENTRY_NAME = 'start.cjs';

/**
 * Left to node_modules: native addons and what Studio imports only on first use (the import-graph
 * test `start-imports` keeps those off the start). Electron and tsx are never in the headless server.
 * better-sqlite3, which every start opens, is bundled but for its addon (`sqliteBindings`).
 */
const EXTERNAL = ['better-sqlite3/package.json', 'sharp', 'archiver', 'grammy', 'multer', 'yaml', 'electron', 'electron-updater', 'tsx', 'tsx/*'];

/** Route every `node:` import of Studio's code through one ES-module view per builtin (see the top). */
const builtinsOnce = {
  name: 'builtins-once',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => (args.namespace === 'builtin-view' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin-view' }));
    build.onLoad({ filter: /.*/, namespace: 'builtin-view' }, (args) => {
      const name = JSON.stringify(args.path);
      return { contents: `export * from ${name};\nexport { default } from ${name};\n`, loader: 'js', resolveDir: root };
    });
  },
};

/**
 * Packages bundled as a stand-in from `bundle-shims/` (each says why): `debug` loads the real
 * package only when DEBUG is set, and the shim's own `require('debug')` is the real one; `depd`
 * warns without finding its caller's file.
 */
const SHIMS = { debug: 'debug.cjs', depd: 'depd.cjs' };

const shims = {
  name: 'shims',
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(SHIMS).join('|')})$`);
    build.onResolve({ filter }, (args) => {
      const shim = path.join(root, 'scripts', 'bundle-shims', SHIMS[args.path]);
      return args.importer === shim ? undefined : { path: shim };
    });
  },
};

/**
 * better-sqlite3's JavaScript is bundled: left outside, every start resolved and compiled its dozen
 * files without a code cache (~4 ms). Its addon stays in node_modules, loaded through
 * `bundle-shims/sqlite-bindings.cjs` (see there), whose own `require('bindings')` is the real one.
 */
const sqliteBindings = {
  name: 'sqlite-bindings',
  setup(build) {
    const shim = path.join(root, 'scripts', 'bundle-shims', 'sqlite-bindings.cjs');
    const sqlite = `${path.sep}node_modules${path.sep}better-sqlite3${path.sep}`;
    build.onResolve({ filter: /^bindings$/ }, (args) => (args.importer.includes(sqlite) ? { path: shim } : undefined));
  },
};

/**
 * Bundled libraries that Express's parts require at load but use only on a request, each behind a
 * stand-in that requires the real one on first use (they read it as `mime.lookup(…)`,
 * `qs.parse(…)`, `iconv.getDecoder(…)` or call `createError(…)` when a request comes). Profiled at
 * start: mime-types builds its maps of ~2 500 types (~4% of the start's CPU; `/api/health` does
 * not need them); qs brings side-channel and object-inspect, which decodes a Unicode width table
 * (~3%), for the extended query and form parsers Studio does not use; iconv-lite, for bodies in
 * charsets other than UTF-8; http-errors makes a class for each of ~60 HTTP statuses (~4 ms), for
 * the errors of a failed request. The value is whether the library is a function (its stand-in is
 * then callable).
 *
 * The real libraries stay in node_modules, required from there on first use: bundled, their ~0.8 MB
 * (iconv-lite's code tables and mime-db's list are most of it) was read, held as a string and
 * walked by V8 at every start for code that runs only later (~5-10 ms, A/B of 21 starts each).
 * Each must resolve to the same copy from every library that imports it as from the app's root,
 * where the bundle finds it; the build fails otherwise.
 */
const LOADED_ON_FIRST_USE = { 'mime-types': false, qs: false, 'iconv-lite': false, 'http-errors': true };

const PROBE = Symbol('first-use lookup');

/**
 * The Proxy handler of a first-use stand-in, as source: every operation goes to what the
 * stand-in's own `load()` returns (the real library, required on the first call).
 */
const STAND_IN_HANDLER = `{
  apply: (_, self, args) => Reflect.apply(load(), self, args),
  get: (_, key) => Reflect.get(load(), key),
  set: (_, key, value) => Reflect.set(load(), key, value),
  has: (_, key) => Reflect.has(load(), key),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const found = Reflect.getOwnPropertyDescriptor(load(), key);
    return found && { ...found, configurable: true };
  },
  defineProperty: (_, key, attributes) => Reflect.defineProperty(load(), key, attributes),
  deleteProperty: (_, key) => Reflect.deleteProperty(load(), key),
  getPrototypeOf: () => Reflect.getPrototypeOf(load()),
}`;

const firstUse = {
  name: 'first-use',
  setup(build) {
    const names = new RegExp(`^(${Object.keys(LOADED_ON_FIRST_USE).map((n) => n.replace(/[-/]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter: names }, async (args) => {
      if (args.namespace === 'first-use') return { path: args.path, external: true };
      // The check's own lookups (below) are left to esbuild.
      if (args.pluginData === PROBE) return undefined;
      const [theirs, rootCopy] = await Promise.all([
        build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: PROBE }),
        build.resolve(args.path, { kind: args.kind, resolveDir: root, pluginData: PROBE }),
      ]);
      if (theirs.path !== rootCopy.path) {
        return { errors: [{ text: `${args.importer} uses its own copy of ${args.path} (${theirs.path}); the bundle would load ${rootCopy.path} instead` }] };
      }
      return { path: args.path, namespace: 'first-use' };
    });
    build.onLoad({ filter: /.*/, namespace: 'first-use' }, (args) => ({
      contents: `'use strict';
let real;
const load = () => (real ??= require(${JSON.stringify(args.path)}));
// A callable library's stand-in is an arrow function: it has no own \`prototype\` the Proxy would
// have to report as the target's.
module.exports = new Proxy(${LOADED_ON_FIRST_USE[args.path] ? '() => {}' : '{}'}, ${STAND_IN_HANDLER});
`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};

/**
 * zod's error messages in English only: zod exports every one of its ~45 locales (`z.locales`),
 * ~0.3 MB of the bundle that Studio never selects; English is the one zod sets up itself.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod/v4/locales/index.js', namespace: 'zod-locales', pluginData: path.join(args.resolveDir, '..', 'locales') } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

/**
 * zod set up on first use, still bundled: Studio's `import { z } from 'zod'` gets a stand-in whose
 * `z` requires the real one when a schema is first built. Required rather than imported, zod's
 * modules are each wrapped by esbuild in a function that runs on that first require, so the start
 * skips them (their classes and prototypes, ~5 ms of the start's CPU): the schemas are built lazily
 * (`contracts/lazy-schema.ts`) and `/api/health` builds none. Bundled, their compiled code still
 * comes from the code cache when a request needs them.
 */
const zodOnFirstUse = {
  name: 'zod-on-first-use',
  setup(build) {
    build.onResolve({ filter: /^zod$/ }, async (args) => {
      if (args.pluginData === PROBE) return undefined;
      if (args.namespace !== 'zod-first-use') return { path: 'zod', namespace: 'zod-first-use' };
      // The stand-in's require takes zod's ES-module build, the one an import gets (not its CommonJS copy).
      const real = await build.resolve('zod', { kind: 'import-statement', resolveDir: root, pluginData: PROBE });
      return real.errors.length ? { errors: real.errors } : { path: real.path };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-first-use' }, () => ({
      contents: `let real;
const load = () => (real ??= require('zod').z);
export const z = new Proxy({}, ${STAND_IN_HANDLER});
`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};

/** Bundle `<dist>/server/main.js` into `<dist>/server/main.bundle.cjs` (+ `.map`) and write its entry `start.cjs`. */
export async function bundleServer(dist = path.join(root, 'dist')) {
  const serverDir = path.join(dist, 'server');
  const outfile = path.join(serverDir, BUNDLE_NAME);
  await esbuild.build({
    entryPoints: [path.join(serverDir, 'main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: EXTERNAL,
    // `import()` of a library kept for first use becomes a promise of `require()` (require(esm) is
    // on from Node 20.19, so the ES-module-only archiver loads too): a real `import()` inside the
    // vm.Script the entry runs fails (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING) in every function V8
    // took from the code cache, whatever `importModuleDynamically` says.
    supported: { 'dynamic-import': false },
    // The libraries come from this checkout's node_modules also when `dist` is elsewhere (a staged app).
    nodePaths: [path.join(root, 'node_modules')],
    plugins: [builtinsOnce, shims, sqliteBindings, firstUse, zodOnFirstUse, zodEnglishOnly],
    // A module's own URL, as tsc's output had it, is the bundle's (app-root.ts finds the app from it).
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    minifyWhitespace: true,
    minifySyntax: true,
    charset: 'ascii',
    sourcemap: 'linked',
    // The map points at the sources on disk; copying them in would only make it slower to read.
    sourcesContent: false,
    logLevel: 'warning',
  });
  // esbuild's service is a child process that otherwise lives as long as its parent: `npm start`
  // bundles in the process that then runs Studio, which would carry it for nothing.
  await esbuild.stop();
  // charset 'ascii' escapes strings and identifiers but cannot rewrite a regular expression literal.
  const offending = /[\u0080-\u00ff]/.exec(fs.readFileSync(outfile, 'latin1'));
  if (offending) throw new Error(`the server bundle has a non-ASCII character near "${fs.readFileSync(outfile, 'latin1').slice(Math.max(0, offending.index - 60), offending.index + 20)}": write it as \\uXXXX in the source (V8 would hold the whole bundle as UTF-16)`);
  fs.copyFileSync(path.join(root, 'scripts', 'server-entry.cjs'), path.join(serverDir, ENTRY_NAME));
  // A code cache made from an earlier bundle must not be used with this one (server-entry.cjs also keys it by size and time).
  for (const name of fs.readdirSync(serverDir)) if (name.startsWith(`${BUNDLE_NAME}.`) && name.endsWith('.v8-cache')) fs.rmSync(path.join(serverDir, name), { force: true });
  return path.join(serverDir, ENTRY_NAME);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dist = process.argv[2] ? path.resolve(process.argv[2]) : undefined;
  console.log(`server bundle → ${path.relative(root, await bundleServer(dist))}`);
}
