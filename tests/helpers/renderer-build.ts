/**
 * The built renderer for e2e tests: builds it when `renderer/dist/index.html` is missing, and
 * measures what a first visit downloads.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { APP_ROOT } from '../../server/config.js';

export const DIST_DIR = path.join(APP_ROOT, 'renderer', 'dist');

/** Build the renderer unless a build is already there. */
export function ensureRendererBuilt(): void {
  if (fs.existsSync(path.join(DIST_DIR, 'index.html'))) return;
  const result = spawnSync(process.execPath, [path.join(APP_ROOT, 'scripts', 'build-renderer.mjs')], { cwd: APP_ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`renderer build failed (exit ${result.status ?? result.signal})`);
}

/** Gzip size of the JavaScript `index.html` loads up front (entry script and its modulepreloads). */
export function initialJsGzipBytes(): { files: string[]; gzipBytes: number } {
  const html = fs.readFileSync(path.join(DIST_DIR, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="(\/static\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const gzipBytes = files.reduce((sum, file) => sum + zlib.gzipSync(fs.readFileSync(path.join(DIST_DIR, file))).length, 0);
  return { files, gzipBytes };
}
