/**
 * `npm run bench`: every benchmark, printed with ratios against a reference measured in the same
 * run. Nothing here fails on a time (CONVENTIONS 18). Pass names to run only some:
 * `npm run bench -- startup`.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchStartup } from './startup.bench.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const benches: Record<string, () => Promise<void>> = {
  startup: () => benchStartup(root),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const build = spawnSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
for (const [name, run] of Object.entries(benches)) {
  if (wanted.length && !wanted.includes(name)) continue;
  console.log(`\n# ${name}`);
  await run();
}
