// The desktop app's tools (Electron, electron-builder) live in desktop/, apart from the server's
// install: they ask for Node >= 22.12, and a user who only runs the server should not get a wall of
// engine warnings for them.
//   node scripts/desktop-tools.mjs install   npm ci in desktop/ (`npm run desktop:install`)
//   node scripts/desktop-tools.mjs run       the Electron shell from source (`npm run desktop`)
//   node scripts/desktop-tools.mjs dist      package the app with electron-builder (`npm run dist`)
//   node scripts/desktop-tools.mjs bin NAME  print the path of a desktop tool (scripts use it)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const desktopDir = path.join(root, 'desktop');
const shell = process.platform === 'win32';
/** Electron 45's build tools (electron-builder, @electron/rebuild, @electron/get) need this Node. */
const DESKTOP_NODE = [22, 12];

export function desktopBin(name) {
  return path.join(desktopDir, 'node_modules', '.bin', shell ? `${name}.cmd` : name);
}

function nodeIsNewEnough() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > DESKTOP_NODE[0] || (major === DESKTOP_NODE[0] && minor >= DESKTOP_NODE[1]);
}

function needTools(name) {
  if (fs.existsSync(desktopBin(name))) return;
  console.error(`The desktop tools are not installed: run \`npm run desktop:install\` first (${name} goes to desktop/node_modules).`);
  process.exit(1);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell });
  process.exit(result.status ?? 1);
}

const [command, arg] = process.argv.slice(2);
if (command === 'install') {
  if (!nodeIsNewEnough()) {
    console.log(
      `Node ${process.versions.node}: building and running the desktop app needs Node >= ${DESKTOP_NODE.join('.')} (Electron 45's tooling). ` +
        'Installing its tools anyway (typecheck reads Electron\'s types from them); npm will warn about their engines.',
    );
  }
  run('npm', ['ci', '--prefix', desktopDir, '--no-audit', '--no-fund']);
} else if (command === 'run') {
  needTools('electron');
  run(desktopBin('electron'), ['.']);
} else if (command === 'dist') {
  needTools('electron-builder');
  if (!nodeIsNewEnough()) {
    console.error(`npm run dist needs Node >= ${DESKTOP_NODE.join('.')} (electron-builder 26 and Electron 45's tooling); this is Node ${process.versions.node}.`);
    process.exit(1);
  }
  run(desktopBin('electron-builder'), ['--config', 'electron-builder.yml', '--projectDir', root, ...process.argv.slice(3)]);
} else if (command === 'bin' && arg) {
  needTools(arg);
  console.log(desktopBin(arg));
} else {
  console.error('usage: desktop-tools.mjs install|run|dist|bin NAME');
  process.exit(2);
}
