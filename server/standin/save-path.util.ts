/**
 * Where output nodes write, by the engine's `folder_paths.get_save_image_path` rules (and
 * VideoHelperSuite's own counter): `filename_prefix` splits into subfolder + base name, the folder is
 * created on demand, the counter is one past the highest number already in that folder, and a
 * prefix that leaves the base folder is an error of the node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isInside } from '../http/contained-path.js';
import { pyBasename, pyDirname, pyNormpath } from '../engine/engine-paths.js';

export interface SaveTarget {
  /** Absolute folder the files go to. */
  folder: string;
  /** Base file name (the prefix's last part). */
  filename: string;
  /** First free counter value. */
  counter: number;
  /** The prefix's folder part relative to the base folder (`""` for none), as history reports it. */
  subfolder: string;
}

/** Raised for a prefix that escapes the base folder (the engine raises a plain Exception). */
export class SavePathError extends Error {}

/**
 * Resolve a prefix. `counterStyle` 'comfy' counts `name_00001_.ext` (trailing underscore);
 * 'vhs' counts `name_00001.ext` (VideoHelperSuite's regex).
 */
export function resolveSaveTarget(
  prefix: string,
  baseDir: string,
  size: { width: number; height: number },
  counterStyle: 'comfy' | 'vhs',
  now: Date = new Date(),
): SaveTarget {
  const expanded = prefix.includes('%') ? expandPrefixTokens(prefix, size.width, size.height, now) : prefix;
  const normalized = pyNormpath(expanded);
  const subfolder = pyDirname(normalized);
  const filename = pyBasename(normalized);
  const base = path.resolve(baseDir);
  const folder = path.resolve(base, subfolder);
  if (!isInside(base, folder)) {
    throw new SavePathError(
      '**** ERROR: Saving image outside the output folder is not allowed.' +
        `\n full_output_folder: ${folder}` +
        `\n         output_dir: ${base}`,
    );
  }
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    fs.mkdirSync(folder, { recursive: true });
    names = [];
  }
  const counter = counterStyle === 'comfy' ? comfyCounter(names, filename, pyBasename(expanded).length) : vhsCounter(names, filename);
  return { folder, filename, counter, subfolder };
}

/**
 * The tokens the engine itself expands (local time, zero-padded). Others such as `%date:…%` or
 * `%Node.widget%` are left untouched: only the browser frontend expands those.
 */
export function expandPrefixTokens(prefix: string, width: number, height: number, now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return prefix
    .replaceAll('%width%', String(width))
    .replaceAll('%height%', String(height))
    .replaceAll('%year%', String(now.getFullYear()))
    .replaceAll('%month%', pad(now.getMonth() + 1))
    .replaceAll('%day%', pad(now.getDate()))
    .replaceAll('%hour%', pad(now.getHours()))
    .replaceAll('%minute%', pad(now.getMinutes()))
    .replaceAll('%second%', pad(now.getSeconds()));
}

/** `name_00007_.png` style: a 5-digit counter with a trailing underscore. */
export function comfyFileName(filename: string, counter: number, ext: string): string {
  return `${filename}_${String(counter).padStart(5, '0')}_.${ext}`;
}

/** `name_00007.mp4` style (VideoHelperSuite). */
export function vhsFileName(filename: string, counter: number, ext: string): string {
  return `${filename}_${String(counter).padStart(5, '0')}.${ext}`;
}

// The engine cuts each existing name at len(prefix)+1, requires "<filename>_" there, and reads the
// digits up to the next "_"; anything unreadable counts as 0. Matching is case-insensitive on
// Windows only (os.path.normcase).
function comfyCounter(names: string[], filename: string, prefixLength: number): number {
  const norm = (s: string) => (process.platform === 'win32' ? s.toLowerCase() : s);
  let max = 0;
  for (const name of names) {
    const head = name.slice(0, prefixLength + 1);
    if (!head.endsWith('_') || norm(head.slice(0, -1)) !== norm(filename)) continue;
    const digits = (name.slice(prefixLength + 1).split('_')[0] ?? '').trim();
    const n = /^[+-]?\d+$/.test(digits) ? Number(digits) : 0;
    if (n > max) max = n;
  }
  return max + 1;
}

function vhsCounter(names: string[], filename: string): number {
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const matcher = new RegExp(`^${escaped}_(\\d+)\\D*\\..+$`, 'i');
  let max = 0;
  for (const name of names) {
    const match = matcher.exec(name);
    if (match) max = Math.max(max, Number(match[1]));
  }
  return max + 1;
}
