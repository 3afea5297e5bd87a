// Builds the Vue renderer with Vite when it exists (renderer/vite.config.*); until then there is
// nothing to build and the server serves its built-in pages.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = ['vite.config.ts', 'vite.config.mjs', 'vite.config.js'].map((f) => path.join(root, 'renderer', f)).find((f) => fs.existsSync(f));
if (!config) {
  console.log('No renderer to build yet (renderer/vite.config.* is missing); the server uses its built-in pages.');
  process.exit(0);
}
const vite = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'vite.cmd' : 'vite');
const result = spawnSync(vite, ['build', '--config', config], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
