// `npm start`: compile the server (and the renderer when it is missing), then run it.
// Compiling first keeps the running code identical to what the desktop build ships.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);

function run(label, command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error(`${label} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status ?? 1);
  }
}

if (!fs.existsSync(path.join(root, 'node_modules'))) {
  console.error('Dependencies are missing: run `npm install` first.');
  process.exit(1);
}
// better-sqlite3 may have been rebuilt for Electron by `npm run desktop`: make sure Node can load it.
run('Checking the native SQLite module', process.execPath, [path.join(root, 'scripts', 'native-deps.mjs'), 'node']);
console.log('Compiling the server…');
run('Compiling the server', bin('tsc'), ['-p', 'tsconfig.build.json']);
if (!fs.existsSync(path.join(root, 'renderer', 'dist', 'index.html'))) {
  run('Building the web UI', process.execPath, [path.join(root, 'scripts', 'build-renderer.mjs')]);
}
await import(pathToFileURL(path.join(root, 'dist', 'server', 'main.js')).href);
