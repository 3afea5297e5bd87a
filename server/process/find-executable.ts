/**
 * Where a program named on PATH lives, looked up in the PATH a child would get: the installer
 * decides between uv and python3, the GPU probe finds the ROCm release beside rocm-smi.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** The absolute path of `name` on `env.PATH` (or `name` itself when it is a path), or null. */
export async function findExecutable(name: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (name.includes('/') || name.includes(path.sep)) return (await isExecutable(name)) ? path.resolve(name) : null;
  const dirs = (env.PATH ?? env.Path ?? '').split(path.delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
