/**
 * What version an engine folder holds: the version file its releases carry
 * (`comfyui_version.py`), else its `pyproject.toml`, else what git says of the checkout.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../process/run-command.js';

/** True when `dir` looks like an engine checkout (its `main.py` and `comfy/` package). */
export async function isEngineDir(dir: string): Promise<boolean> {
  const [main, pkg] = await Promise.all([fsp.stat(path.join(dir, 'main.py')).catch(() => null), fsp.stat(path.join(dir, 'comfy')).catch(() => null)]);
  return Boolean(main?.isFile() && pkg?.isDirectory());
}

/** "0.3.40" (or a git description), or null when nothing says. */
export async function engineVersionOf(dir: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const file = await fsp.readFile(path.join(dir, 'comfyui_version.py'), 'utf8').catch(() => '');
  const fromFile = /__version__\s*=\s*["']([^"']+)["']/.exec(file)?.[1];
  if (fromFile) return fromFile;
  const toml = await fsp.readFile(path.join(dir, 'pyproject.toml'), 'utf8').catch(() => '');
  const fromToml = /^version\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (fromToml) return fromToml;
  const git = await runCommand('git', ['-C', dir, 'describe', '--tags', '--always'], { env, timeoutMs: 10_000 });
  return git.code === 0 && git.stdout.trim() ? git.stdout.trim() : null;
}
