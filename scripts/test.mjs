// `npm test`, as CI runs it: typecheck, lint, every Vitest suite, then the web UI's e2e suite.
// Ends with the plain line `N passed, N failed, N skipped` (typecheck, lint and the UI build count
// as one check each), taken from Vitest's JSON reports rather than its coloured summary. A skipped
// test fails the run unless scripts/allowed-skips.mjs lists it (a GPU or the Electron binary only).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unlistedSkips } from './allowed-skips.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
let passed = 0;
let failed = 0;
let skipped = 0;

function check(label, command, args) {
  const started = Date.now();
  console.log(`\n=== ${label} ===`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env, shell: process.platform === 'win32' });
  const ok = result.status === 0;
  console.log(`=== ${label}: ${ok ? 'ok' : 'FAILED'} (${((Date.now() - started) / 1000).toFixed(1)} s) ===`);
  if (ok) passed++;
  else failed++;
  return ok;
}

// `npm run desktop` rebuilds better-sqlite3 for Electron; the tests run in Node.
spawnSync(process.execPath, [path.join(root, 'scripts', 'native-deps.mjs'), 'node'], { cwd: root, stdio: 'inherit' });
// main/ and preload/ typecheck against Electron's types, which come with the desktop tools: the
// first run installs them itself (without Electron's binary, which no test runs), so a fresh clone
// needs only `npm install` and `npm test`.
if (!['desktop/node_modules/electron', 'node_modules/electron'].some((dir) => fs.existsSync(path.join(root, dir, 'electron.d.ts')))) {
  console.log("Installing the desktop tools once (desktop/node_modules: Electron's types for the typecheck, not its binary)...");
  const installed = spawnSync('npm', ['ci', '--prefix', path.join(root, 'desktop'), '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    shell: process.platform === 'win32',
  });
  if (installed.status !== 0) console.error('The desktop tools could not be installed: the typecheck of main/ and preload/ will fail (run `npm run desktop:install` to see why).');
}
// The one test against a real llama-server needs it built (3.5-5 min on 2 cores, once, then cached in
// the clone's ignored `.cache/`, or $LLAMA_SERVER_CACHE). It builds while typecheck and lint run
// (each uses one core), its megabytes of output going to a log file rather than a buffer (captured,
// they once overflowed spawnSync's buffer and the build was killed); a build that fails is a
// failed check, and the real-LLM test then fails too: CI never skips it.
const llamaLog = path.join(root, 'artifacts', 'llama-server-build.log');
fs.mkdirSync(path.dirname(llamaLog), { recursive: true });
const llamaBuild = new Promise((resolve) => {
  const log = fs.openSync(llamaLog, 'w');
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'build-llama-server.mjs')], { cwd: root, stdio: ['ignore', log, log], env });
  // Heard only between the checks below (each blocks this script while it runs).
  child.on('close', (code) => {
    fs.closeSync(log);
    resolve({ ok: code === 0 });
  });
});

check('typecheck (server, main, preload, tests)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
if (fs.existsSync(path.join(root, 'renderer', 'tsconfig.json'))) {
  check('typecheck (renderer)', bin('vue-tsc'), ['-p', 'renderer/tsconfig.json', '--noEmit']);
}
check('lint', bin('eslint'), ['.']);

/** Run Vitest with a JSON report and add its counts; a suite that fails to load counts as a failure. */
function vitestRun(label, report, extraArgs) {
  fs.mkdirSync(path.dirname(report), { recursive: true });
  fs.rmSync(report, { force: true });
  console.log(`\n=== ${label} ===`);
  const run = spawnSync(bin('vitest'), ['run', ...extraArgs, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: root,
    stdio: 'inherit',
    env,
    shell: process.platform === 'win32',
  });
  const failedBefore = failed;
  if (fs.existsSync(report)) {
    const r = JSON.parse(fs.readFileSync(report, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + (r.numTodoTests ?? 0);
    const unlisted = unlistedSkips(r, root);
    if (unlisted.length > 0) {
      console.error(`\n${unlisted.length} test(s) skipped that scripts/allowed-skips.mjs does not list (each counts as a failure):`);
      for (const name of unlisted) console.error(`  SKIPPED ${name}`);
    }
    failed += unlisted.length;
    // A suite that fails to load has no failed test but is a failure all the same.
    failed += (r.testResults ?? []).filter((s) => s.status === 'failed' && s.assertionResults.every((a) => a.status !== 'failed')).length;
  } else {
    console.error(`${label}: Vitest wrote no report.`);
    failed++;
  }
  if (run.status !== 0 && failed === failedBefore) failed++;
}

console.log('\n=== build llama-server for the real-LLM test (started with the typecheck) ===');
const llama = await llamaBuild;
if (llama.ok) passed++;
else {
  failed++;
  console.error(fs.readFileSync(llamaLog, 'utf8').trim().split('\n').slice(-30).join('\n'));
}
console.log(`=== build llama-server: ${llama.ok ? 'ok' : 'FAILED'} (its log: artifacts/llama-server-build.log) ===`);

vitestRun('vitest', path.join(root, '.vitest-results.json'), []);

// The web UI in headless Chromium against a real Studio: build the renderer first (so the suite
// tests this checkout's UI), then run the e2e suite; it fails, never skips, without a browser.
if (check('build the web UI', process.execPath, [path.join(root, 'scripts', 'build-renderer.mjs')])) {
  vitestRun('vitest e2e (Chromium)', path.join(root, 'artifacts', 'vitest-e2e-results.json'), ['--config', 'vitest.e2e.config.ts']);
}

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
