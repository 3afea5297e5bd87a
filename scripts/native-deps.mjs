// better-sqlite3 is a native module: Node and Electron need different builds of it.
//   node scripts/native-deps.mjs node      rebuild for Node when the installed build does not load
//   node scripts/native-deps.mjs electron  rebuild for Electron (npm run desktop / dist)
// `npm start` and `npm test` run the first, so switching back from the desktop app is automatic.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = process.argv[2] ?? 'node';
const shell = process.platform === 'win32';

function loadsInNode() {
  const probe = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root, encoding: 'utf8' });
  return { ok: probe.status === 0, error: probe.stderr };
}

if (target === 'node') {
  const first = loadsInNode();
  if (first.ok) process.exit(0);
  if (!/NODE_MODULE_VERSION|was compiled against a different Node/.test(first.error)) {
    console.error(first.error);
    process.exit(1);
  }
  console.log('better-sqlite3 was built for Electron; rebuilding it for Node…');
  const rebuild = spawnSync('npm', ['rebuild', 'better-sqlite3'], { cwd: root, stdio: 'inherit', shell });
  process.exit(rebuild.status ?? 1);
} else if (target === 'electron') {
  // electron-builder is one of the desktop tools (desktop/, `npm run desktop:install`).
  const bin = path.join(root, 'desktop', 'node_modules', '.bin', shell ? 'electron-builder.cmd' : 'electron-builder');
  if (!fs.existsSync(bin)) {
    console.error('The desktop tools are not installed: run `npm run desktop:install` first.');
    process.exit(1);
  }
  const rebuild = spawnSync(bin, ['install-app-deps'], { cwd: root, stdio: 'inherit', shell });
  process.exit(rebuild.status ?? 1);
} else {
  console.error('usage: native-deps.mjs node|electron');
  process.exit(2);
}
