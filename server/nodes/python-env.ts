/**
 * The engine's Python environment as Studio reads it: every installed distribution with its
 * version (a snapshot's package list), compared by pip's normalized names. Answers go through a
 * file, not stdout: a big environment's list is longer than the output tail `runCommand` keeps.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { PythonChanges } from '../contracts/nodes.contract.js';
import { DomainError } from '../domain-error.js';
import { runCommand } from '../process/run-command.js';
import { compareVersions } from '../versions.js';

/** `{normalized name: version}` of every installed distribution. */
export type PackageVersions = Record<string, string>;

const LIST_INSTALLED = `
import importlib.metadata as m, json, re, sys
out = {}
for d in m.distributions():
    name = d.metadata["Name"]
    if name:
        out[re.sub(r"[-_.]+", "-", name).lower()] = d.version
with open(sys.argv[1], "w") as f:
    json.dump(out, f, sort_keys=True)
`;

/** pip's name normalization (PEP 503): `Foo_Bar.baz` and `foo-bar-baz` are one package. */
export function normalizeName(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

/** Every distribution installed in `python`'s environment; its answer file goes under `scratchDir` (inside the data folder, which a chrooted Python also sees). */
export async function listInstalled(python: string, env: NodeJS.ProcessEnv, scratchDir: string): Promise<PackageVersions> {
  await fsp.mkdir(scratchDir, { recursive: true });
  const dir = await fsp.mkdtemp(path.join(scratchDir, 'pylist-'));
  try {
    const out = path.join(dir, 'installed.json');
    // Run inside the scratch folder: an engine Python in a chroot sees only its own tree, the data folder beside it.
    const result = await runCommand(python, ['-c', LIST_INSTALLED, out], { cwd: dir, env, timeoutMs: 120_000 });
    if (result.code !== 0) {
      throw new DomainError('failed', `Could not ask the engine's Python (${python}) for its packages: ${result.stderr.trim().slice(-300) || `exit ${result.code ?? 'none'}`}`);
    }
    return JSON.parse(await fsp.readFile(out, 'utf8')) as PackageVersions;
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** How `after` differs from `before`: packages added, removed, upgraded, downgraded. */
export type PackageChanges = PythonChanges & { removed: Array<{ name: string; version: string }> };

/** Compare two package lists (names normalized). */
export function diffPackages(before: PackageVersions, after: PackageVersions): PackageChanges {
  const changes: PackageChanges = { added: [], removed: [], upgraded: [], downgraded: [] };
  for (const [name, version] of Object.entries(after)) {
    const old = before[name];
    if (old === undefined) changes.added.push({ name, version });
    else if (old !== version) (compareVersions(version, old) > 0 ? changes.upgraded : changes.downgraded).push({ name, from: old, to: version });
  }
  for (const [name, version] of Object.entries(before)) if (after[name] === undefined) changes.removed.push({ name, version });
  for (const list of Object.values(changes) as Array<Array<{ name: string }>>) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return changes;
}

