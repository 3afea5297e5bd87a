/**
 * The packages a node install must never replace in the engine's Python: torch and friends (a
 * pack asking for another torch would download gigabytes and can leave the engine without GPU
 * support) and numpy (a major-version swap breaks compiled extensions). Their installed versions
 * are read once from the engine's own Python (`python-env.ts`, the one reader of its packages)
 * and become a pip constraints file.
 */
import path from 'node:path';
import { listInstalled } from './python-env.js';
import { writeFileAtomic } from '../fs-durable.js';

const PINNED = ['torch', 'torchvision', 'torchaudio', 'numpy'] as const;

/** `{package: version}` of the pinned packages installed in `python` (absent ones left out). */
export async function readPinnedVersions(python: string, env: NodeJS.ProcessEnv, scratchDir: string): Promise<Record<string, string>> {
  const installed = await listInstalled(python, env, scratchDir);
  return Object.fromEntries(PINNED.flatMap((name) => (installed[name] ? [[name, installed[name]]] : [])));
}

/** Write a pip constraints file pinning `versions`; returns its path. */
export async function writeConstraints(dir: string, versions: Record<string, string>): Promise<string> {
  const file = path.join(dir, 'engine-constraints.txt');
  await writeFileAtomic(file, Object.entries(versions).map(([name, version]) => `${name}==${version}\n`).join(''));
  return file;
}

/** pip's words when the constraints (or the requirements themselves) cannot all be met. */
export function isResolutionConflict(pipOutput: string): boolean {
  return /ResolutionImpossible|conflicting dependencies|Cannot install .* because/i.test(pipOutput);
}
