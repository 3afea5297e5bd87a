/**
 * The engine's three folders (input, output, temp) and its path rules: `name [output]`
 * annotations, Python's `normpath`, and the "stays inside the folder" check. Shared by the
 * stand-in (which plays the engine) and Studio (which reads the folders it shares with the engine).
 */
import path from 'node:path';

export interface EngineDirs {
  input: string;
  output: string;
  temp: string;
}

export type FolderType = 'input' | 'output' | 'temp';

/** The folder for an `?type=` / upload `type` value, or null for anything else. */
export function dirByType(dirs: EngineDirs, type: string): string | null {
  if (type === 'input' || type === 'output' || type === 'temp') return dirs[type];
  return null;
}

/**
 * Split `x.png [output]` into its name and folder. Without an annotation the folder is
 * `fallback` (input/ for LoadImage, the `type` query for /view).
 */
export function annotatedPath(
  name: string,
  dirs: EngineDirs,
  fallback: FolderType | null,
): { name: string; dir: string | null; folder: FolderType | null } {
  const match = /^(.*) \[(input|output|temp)\]$/.exec(name);
  if (match) {
    const folder = match[2] as FolderType;
    return { name: match[1] ?? '', dir: dirs[folder], folder };
  }
  return { name, dir: fallback ? dirs[fallback] : null, folder: fallback };
}


/** Python's `os.path.normpath`: unlike `path.normalize` it drops a trailing slash and maps "" to ".". */
export function pyNormpath(p: string): string {
  if (p === '') return '.';
  const normalized = path.normalize(p);
  if (normalized.length > 1 && normalized.endsWith(path.sep)) return normalized.slice(0, -1);
  return normalized;
}

/** Python's `os.path.basename`: the text after the last separator ("" for "a/b/"). */
export function pyBasename(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), path.sep === '\\' ? p.lastIndexOf('\\') : -1);
  return p.slice(i + 1);
}

/** Python's `os.path.dirname`: the text before the last separator, trailing separators stripped. */
export function pyDirname(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), path.sep === '\\' ? p.lastIndexOf('\\') : -1);
  if (i < 0) return '';
  const head = p.slice(0, i);
  const stripped = head.replace(/[\\/]+$/, '');
  return stripped === '' ? head.slice(0, 1) : stripped;
}
