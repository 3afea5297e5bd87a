// `npm start`: compile the server when its sources changed (and the renderer when it is missing),
// then run it. Compiling first keeps the running code identical to what the desktop build ships;
// skipping an unneeded compile keeps a plain restart quick (the compiler alone takes seconds).
// What runs is tsc's output bundled into one file (scripts/bundle-server.mjs says why) through its
// entry (server-entry.cjs).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
/** What the last successful compile was made from (see `sourcesFingerprint`). */
const stampFile = path.join(root, 'dist', '.server-build-stamp');
const bundle = path.join(root, 'dist', 'server', 'main.bundle.cjs');
/** The bundle's entry (scripts/server-entry.cjs), written with it. */
const entry = path.join(root, 'dist', 'server', 'start.cjs');

function run(label, command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error(`${label} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status ?? 1);
  }
}

/**
 * Path, size and modification time of every input of `tsconfig.server.json` (server/, the
 * tsconfig files, package.json) and of the bundler's settings hashed into one string: any edit,
 * added, removed or renamed file changes it, as `make` would see it.
 */
function sourcesFingerprint() {
  const hash = crypto.createHash('sha256');
  const add = (rel) => {
    const stat = fs.statSync(path.join(root, rel), { throwIfNoEntry: false });
    hash.update(`${rel}\0${stat ? `${stat.size}\0${stat.mtimeMs}` : '-'}\n`);
  };
  const walk = (dir) => {
    const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else add(rel);
    }
  };
  for (const dir of ['server']) if (fs.existsSync(path.join(root, dir))) walk(dir);
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'tsconfig.server.json', 'package.json', 'package-lock.json', 'scripts/bundle-server.mjs', 'scripts/server-entry.cjs']) add(file);
  return hash.digest('hex');
}

/** Whether better-sqlite3 loads in this Node (it does not after `npm run desktop` rebuilt it for Electron). */
function sqliteLoads() {
  try {
    const Database = createRequire(path.join(root, 'package.json'))('better-sqlite3');
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

function readStamp() {
  try {
    return fs.readFileSync(stampFile, 'utf8');
  } catch {
    return null;
  }
}

if (!fs.existsSync(path.join(root, 'node_modules'))) {
  console.error('Dependencies are missing: run `npm install` first.');
  process.exit(1);
}
// Checked in this process (a child Node costs as much as the rest of a restart); the rebuild and
// its messages stay in native-deps.mjs.
if (!sqliteLoads()) run('Checking the native SQLite module', process.execPath, [path.join(root, 'scripts', 'native-deps.mjs'), 'node']);
const fingerprint = sourcesFingerprint();
if (!fs.existsSync(bundle) || !fs.existsSync(entry) || readStamp() !== fingerprint) {
  console.log('Compiling the server…');
  fs.rmSync(stampFile, { force: true });
  // The server alone: main/ needs Electron's types, which a plain `npm install` does not bring.
  run('Compiling the server', bin('tsc'), ['-p', 'tsconfig.server.json']);
  // Imported here only: a start with nothing to compile does not load the bundler.
  const { bundleServer } = await import('./bundle-server.mjs');
  await bundleServer();
  fs.writeFileSync(stampFile, fingerprint);
}
if (!fs.existsSync(path.join(root, 'renderer', 'dist', 'index.html'))) {
  run('Building the web UI', process.execPath, [path.join(root, 'scripts', 'build-renderer.mjs')]);
}
// `NODE_OPTIONS=--enable-source-maps npm start` maps stack traces to the .ts lines.
createRequire(import.meta.url)(entry);
