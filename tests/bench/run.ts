/**
 * `npm run bench`: every `tests/bench/*.bench.ts` (each exports `run(root)`), printed with
 * ratios against a reference measured in the same run. Nothing here fails on a time
 * (CONVENTIONS 18). Pass names to run only some: `npm run bench -- startup relay`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { targetTable, type TargetRow } from './targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));

// The server as `npm start` runs it: tsc's output, bundled into one file (scripts/bundle-server.mjs).
for (const [command, args] of [
  [path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json']],
  [process.execPath, [path.join(root, 'scripts', 'bundle-server.mjs')]],
] as const) {
  const build = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const rows: TargetRow[] = [];
for (const file of fs.readdirSync(here).filter((f) => f.endsWith('.bench.ts')).sort()) {
  const name = file.replace(/\.bench\.ts$/, '');
  if (wanted.length && !wanted.includes(name)) continue;
  console.log(`\n# ${name}`);
  const mod = (await import(pathToFileURL(path.join(here, file)).href)) as { run: (root: string) => Promise<TargetRow[] | void> };
  try {
    rows.push(...((await mod.run(root)) ?? []));
  } catch (err) {
    // One bench that breaks (a real engine's install, say) leaves the others' numbers standing.
    console.log(`${name}: failed: ${(err as Error).stack ?? String(err)}`);
    rows.push({ measure: name, target: '(the bench failed)', value: `failed: ${(err as Error).message.split('\n')[0]}`, met: false });
    process.exitCode = 1;
  }
}
if (rows.length) console.log(`\n${targetTable(rows)}`);
