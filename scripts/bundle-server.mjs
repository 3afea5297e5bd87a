// Bundles the compiled headless server (`dist/server/main.js`, tsc's output) into one CommonJS
// file, `dist/server/main.bundle.cjs`, and puts the small entry `npm start` runs beside it,
// `dist/server/start.cjs` (scripts/server-entry.cjs: Node's own compile cache where it has one).
//
// Why a bundle: Node pays per module it loads (resolve, read, compile), and the start loads ~360
// of Studio's modules and ~500 of its libraries'; one file roughly halves the CPU until
// `/api/health` answers (tests/bench/README.md has the numbers). It is a plain esbuild bundle:
// the pure-JavaScript libraries are in it; native addons (better-sqlite3, sharp) and the libraries
// Studio imports on first use (`import()`: yaml, archiver, grammy, multer) stay in node_modules.
// The download worker and the stand-in engine stay tsc's separate files: they run in their own
// thread or process and are found from the app root (server/config/app-root.ts). The linked
// source map chains back to the .ts files through tsc's maps; Node uses it with
// `--enable-source-maps`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle's file name, beside tsc's `main.js`. */
export const BUNDLE_NAME = 'main.bundle.cjs';
/** What `npm start` runs: the bundle, with Node's compile cache where Node has one. */
export const ENTRY_NAME = 'start.cjs';

/**
 * Left to node_modules: native addons and what Studio imports only on first use (the import-graph
 * test `start-imports` keeps those off the start). Electron and tsx are never in the headless server.
 */
const EXTERNAL = ['better-sqlite3', 'sharp', 'archiver', 'grammy', 'multer', 'yaml', 'electron', 'electron-updater', 'tsx', 'tsx/*'];

/** Bundle `<dist>/server/main.js` into `<dist>/server/main.bundle.cjs` (+ `.map`) and write its entry `start.cjs`. */
export async function bundleServer(dist = path.join(root, 'dist')) {
  const serverDir = path.join(dist, 'server');
  await esbuild.build({
    entryPoints: [path.join(serverDir, 'main.js')],
    outfile: path.join(serverDir, BUNDLE_NAME),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: EXTERNAL,
    // The libraries come from this checkout's node_modules also when `dist` is elsewhere (a staged app).
    nodePaths: [path.join(root, 'node_modules')],
    // A module's own URL, as tsc's output had it, is the bundle's (app-root.ts finds the app from it).
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    sourcemap: 'linked',
    // The map points at the sources on disk; copying them in would only make it slower to read.
    sourcesContent: false,
    logLevel: 'warning',
  });
  // esbuild's service is a child process that otherwise lives as long as its parent: `npm start`
  // bundles in the process that then runs Studio, which would carry it for nothing.
  await esbuild.stop();
  fs.copyFileSync(path.join(root, 'scripts', 'server-entry.cjs'), path.join(serverDir, ENTRY_NAME));
  return path.join(serverDir, ENTRY_NAME);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dist = process.argv[2] ? path.resolve(process.argv[2]) : undefined;
  console.log(`server bundle → ${path.relative(root, await bundleServer(dist))}`);
}
