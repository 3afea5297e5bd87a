/**
 * What a first visit downloads: the gzip size of the JavaScript `index.html` loads up front (entry
 * and modulepreloads) against the 250 KB budget and against Vue's own production runtime measured
 * in the same run (the floor for any Vue app), plus the largest lazily loaded page chunks.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIST_DIR, ensureRendererBuilt, initialJsGzipBytes } from '../helpers/renderer-build.js';

const BUDGET = 250 * 1024;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Print the sizes and ratios. */
export function run(root: string): Promise<void> {
  ensureRendererBuilt();
  const initial = initialJsGzipBytes();
  const vue = zlib.gzipSync(fs.readFileSync(path.join(root, 'node_modules', 'vue', 'dist', 'vue.runtime.esm-browser.prod.js'))).length;
  console.log(`renderer initial JS (gzip): ${kb(initial.gzipBytes)} in ${initial.files.length} file(s); budget ${kb(BUDGET)}, ratio ${(initial.gzipBytes / BUDGET).toFixed(2)}; Vue runtime alone ${kb(vue)}, ratio ${(initial.gzipBytes / vue).toFixed(2)}`);
  const upFront = new Set(initial.files.map((f) => path.basename(f)));
  const lazy = fs
    .readdirSync(path.join(DIST_DIR, 'static'))
    .filter((f) => f.endsWith('.js') && !upFront.has(f))
    .map((f) => ({ file: f, bytes: zlib.gzipSync(fs.readFileSync(path.join(DIST_DIR, 'static', f))).length }))
    .sort((a, b) => b.bytes - a.bytes);
  console.log(`renderer lazy chunks: ${lazy.length}, largest ${lazy.slice(0, 3).map((c) => `${c.file.replace(/-[\w-]{8}\.js$/, '')} ${kb(c.bytes)}`).join(', ')}`);
  return Promise.resolve();
}
