/**
 * What `pip install -r requirements.txt` would change in the engine's Python, from pip's own
 * `--dry-run --report` (nothing is installed), under the constraints that hold torch, numpy and
 * the rest. When the held versions make the requirements unresolvable, pip is asked once more
 * without them, so the refusal can say which held package the node package wanted to move.
 * Nothing of the package runs: pip gets only its plain requirements (`requirements-file.ts`),
 * in a scratch folder, and only wheels (a source archive would be built, running its setup).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import { runCommand, type RunResult } from '../process/run-command.js';
import { normalizeName, type PackageVersions } from './python-env.js';
import { compareVersions } from '../versions.js';
import { isResolutionConflict } from './pinned-packages.js';
import { readPlainRequirements } from './requirements-file.js';
import type { PythonChanges, VersionChangeItem } from '../contracts/nodes.contract.js';

export interface PipRun {
  python: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Where the report file is written (removed afterwards). */
  scratchDir: string;
  onLine?: (line: string) => void;
}

interface PipReport {
  install?: Array<{ metadata?: { name?: string; version?: string } }>;
}

/** `{name: version}` pip's report says it would install, or the failed run. */
async function dryRun(run: PipRun, requirements: readonly string[], constraints: string | null): Promise<{ ok: true; install: PackageVersions } | { ok: false; result: RunResult }> {
  await fsp.mkdir(run.scratchDir, { recursive: true });
  const dir = await fsp.mkdtemp(path.join(run.scratchDir, 'pip-report-'));
  try {
    const report = path.join(dir, 'report.json');
    await fsp.writeFile(path.join(dir, 'requirements.txt'), `${requirements.join('\n')}\n`);
    const args = ['-m', 'pip', 'install', '--dry-run', '--quiet', '--disable-pip-version-check', '--only-binary', ':all:', '--report', report, '-r', 'requirements.txt'];
    if (constraints) args.push('-c', constraints);
    const result = await runCommand(run.python, args, { cwd: dir, env: run.env, timeoutMs: run.timeoutMs, onLine: (line) => line.trim() && run.onLine?.(line) });
    if (result.code !== 0 || result.timedOut) return { ok: false, result };
    const parsed = JSON.parse(await fsp.readFile(report, 'utf8')) as PipReport;
    const install: PackageVersions = {};
    for (const item of parsed.install ?? []) {
      const name = item.metadata?.name;
      const version = item.metadata?.version;
      if (name && version) install[normalizeName(name)] = version;
    }
    return { ok: true, install };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Sort what pip would install against what is installed. */
function classify(install: PackageVersions, installed: PackageVersions): PythonChanges {
  const changes: PythonChanges = { added: [], upgraded: [], downgraded: [] };
  for (const [name, version] of Object.entries(install).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const old = installed[name];
    if (old === undefined) changes.added.push({ name, version });
    else if (old !== version) (compareVersions(version, old) > 0 ? changes.upgraded : changes.downgraded).push({ name, from: old, to: version });
  }
  return changes;
}

/** The changes to held packages among `changes`. */
function heldChanges(changes: PythonChanges, held: PackageVersions): VersionChangeItem[] {
  return [...changes.upgraded, ...changes.downgraded].filter((c) => held[c.name] !== undefined);
}

export interface PreviewInput {
  /** The package's folder (a scratch clone for a new install) holding `requirements.txt`. */
  dir: string;
  name: string;
  installed: PackageVersions;
  /** The held packages and their installed versions. */
  held: PackageVersions;
  /** The constraints file pinning `held`. */
  constraints: string;
}

/**
 * The Python changes of installing `dir/requirements.txt`; a `conflict` naming the held package
 * (and its versions) when the requirements would move one, before anything is installed.
 */
export async function previewRequirements(run: PipRun, input: PreviewInput): Promise<PythonChanges> {
  const requirements = await readPlainRequirements(input.dir, input.name);
  if (requirements.length === 0) return { added: [], upgraded: [], downgraded: [] };
  const held = await dryRun(run, requirements, input.constraints);
  if (held.ok) {
    const changes = classify(held.install, input.installed);
    // pip honoured the constraints, so this is only a guard against a constraints file gone wrong.
    refuseHeld(input.name, heldChanges(changes, input.held));
    return changes;
  }
  const { result } = held;
  if (result.timedOut) throw new DomainError('failed', `The dependency preview (pip --dry-run) timed out after ${Math.round(run.timeoutMs / 1000)} s`);
  if (isResolutionConflict(result.stderr + result.stdout)) {
    const free = await dryRun(run, requirements, null);
    if (free.ok) refuseHeld(input.name, heldChanges(classify(free.install, input.installed), input.held));
    const pins = Object.entries(input.held).map(([n, v]) => `${n}==${v}`);
    throw new DomainError('conflict', `${input.name} needs versions that conflict with the engine's held packages (${pins.join(', ')}), so it was not installed. pip said: ${lastLines(result.stderr || result.stdout)}`);
  }
  const said = lastLines(result.stderr || result.stdout);
  if (/no matching distribution|only-binary|binary/i.test(said)) {
    throw new DomainError('rejected', `${input.name} needs a package the index has no ready-built wheel of for this Python (or does not have at all); the preview does not build one, since building runs its code, and nothing was run. pip said: ${said}`);
  }
  throw new DomainError('failed', `The dependency preview (pip --dry-run) failed (exit ${result.code ?? 'none'}): ${said}`);
}

function refuseHeld(name: string, changes: VersionChangeItem[]): void {
  if (changes.length === 0) return;
  const words = changes.map((c) => `${c.name} ${c.from} → ${c.to}`).join(', ');
  throw new DomainError('conflict', `${name} would change ${changes.length === 1 ? 'a package' : 'packages'} the engine holds (${words}), so nothing was installed. Held packages keep the engine working; install a version of ${name} that works with them.`, {
    held_changes: changes,
  });
}

export function lastLines(text: string): string {
  return text.trim().split('\n').slice(-6).join('\n');
}
