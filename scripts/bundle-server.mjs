// Bundles the compiled headless server (`dist/server/main.js`, tsc's output) into one file,
// `dist/server/main.bundle.js`, which `npm start` runs. Why: Node pays per module it loads
// (resolve, read, compile), and Studio's start loads some 360 of its own; one file took the CPU
// used until `/api/health` answers from ~620-690 to ~460-500 ms and the idle RSS from ~113-119 to
// ~100-107 MiB (measured side by side; `npm run bench -- startup` measures the bundle). npm
// packages stay outside, imported from node_modules as before (native addons, libraries loaded on
// first use). The download worker and the stand-in engine stay tsc's separate files: they run in
// their own thread or process and are found from the app root (server/config/app-root.ts). The
// linked source map chains back to the .ts files through tsc's maps; Node uses it with
// `--enable-source-maps` (off in `npm start`, see start.mjs).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The bundle's file name, beside tsc's `main.js`. */
export const BUNDLE_NAME = 'main.bundle.js';

/** Bundle `<dist>/server/main.js` into `<dist>/server/main.bundle.js` (+ `.map`). */
export async function bundleServer(dist = path.join(root, 'dist')) {
  const outfile = path.join(dist, 'server', BUNDLE_NAME);
  await esbuild.build({
    entryPoints: [path.join(dist, 'server', 'main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    // The map points at the sources on disk; copying them in would only make it slower to read.
    sourcesContent: false,
    logLevel: 'warning',
  });
  // esbuild's service is a child process that otherwise lives as long as its parent: `npm start`
  // bundles in the process that then runs Studio, which would carry it for nothing.
  await esbuild.stop();
  return outfile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dist = process.argv[2] ? path.resolve(process.argv[2]) : undefined;
  console.log(`server bundle → ${path.relative(root, await bundleServer(dist))}`);
}
