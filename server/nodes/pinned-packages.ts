/**
 * The packages a node install must never replace in the engine's Python: torch and friends (a
 * pack asking for another torch would download gigabytes and can leave the engine without GPU
 * support) and numpy (a major-version swap breaks compiled extensions). Their installed versions
 * are read once from the engine's own Python and become a pip constraints file.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../process/run-command.js';

const PINNED = ['torch', 'torchvision', 'torchaudio', 'numpy'] as const;

const READ_VERSIONS = `
import importlib.metadata as m, json
out = {}
for name in ${JSON.stringify(PINNED)}:
    try:
        out[name] = m.version(name)
    except m.PackageNotFoundError:
        pass
print(json.dumps(out))
`;

/** `{package: version}` of the pinned packages installed in `python` (absent ones left out). */
export async function readPinnedVersions(python: string, env: NodeJS.ProcessEnv, cwd?: string): Promise<Record<string, string>> {
  if (cwd) await fsp.mkdir(cwd, { recursive: true });
  const result = await runCommand(python, ['-c', READ_VERSIONS], { cwd, env, timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`could not ask the engine's Python (${python}) for its packages: ${result.stderr.trim().slice(-300)}`);
  const lines = result.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] ?? '{}') as Record<string, string>;
}

/** Write a pip constraints file pinning `versions`; returns its path. */
export async function writeConstraints(dir: string, versions: Record<string, string>): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'engine-constraints.txt');
  const body = Object.entries(versions)
    .map(([name, version]) => `${name}==${version}\n`)
    .join('');
  await fsp.writeFile(`${file}.tmp`, body);
  await fsp.rename(`${file}.tmp`, file);
  return file;
}

/** pip's words when the constraints (or the requirements themselves) cannot all be met. */
export function isResolutionConflict(pipOutput: string): boolean {
  return /ResolutionImpossible|conflicting dependencies|Cannot install .* because/i.test(pipOutput);
}
