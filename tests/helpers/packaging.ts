/**
 * What the packaged desktop app holds, read the way electron-builder reads it: the production
 * dependency tree (`npm ls --omit=dev`), the native files in it, and `electron-builder.yml`'s
 * `files` / `asarUnpack` / `extraResources` with electron-builder's own matcher when it is
 * installed (else the same glob library with the same options).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Minimatch } from 'minimatch';
import YAML from 'yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BuilderConfig {
  files: string[];
  asarUnpack?: string[];
  extraResources?: Array<{ from: string; to: string }>;
  electronVersion?: string;
  [key: string]: unknown;
}

export function builderConfig(): BuilderConfig {
  return YAML.parse(fs.readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as BuilderConfig;
}

/** Folders of the production dependencies (absolute), as `npm ls --omit=dev --all --parseable` lists them. */
export function productionPackageDirs(): string[] {
  let out: string;
  try {
    out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    // npm ls exits 1 on an extraneous or invalid package but still lists the tree.
    out = String((err as { stdout?: string }).stdout ?? '');
  }
  const dirs = [...new Set(out.split('\n').map((l) => l.trim()).filter((l) => l && l !== ROOT))];
  if (dirs.length === 0) throw new Error('npm ls listed no production dependency');
  return dirs;
}

/** `.node` addons and the shared libraries they load (`.so`, `.so.8.17.3`, `.dll`, `.dylib`). */
export const NATIVE_FILE = /\.(node|dll|dylib|so)(\.\d+)*$/;

/** Every native file of the production dependencies, absolute (a package's own node_modules is its dependencies' business). */
export function nativeFilesOf(packageDirs: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string, top: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' && dir === top) continue;
        walk(full, top);
      } else if (entry.isFile() && NATIVE_FILE.test(entry.name)) {
        found.push(full);
      }
    }
  };
  for (const dir of packageDirs) walk(dir, dir);
  return found.sort();
}

type Filter = (file: string, stat: fs.Stats) => boolean;

/** electron-builder's file matching (app-builder-lib), from wherever electron-builder is installed. */
function builderFileMatchers(): { getFileMatchers: (...args: unknown[]) => Array<{ createFilter(): Filter }> | null } | null {
  for (const base of [path.join(ROOT, 'desktop', 'package.json'), path.join(ROOT, 'package.json')]) {
    try {
      const builder = createRequire(base).resolve('electron-builder/package.json');
      return createRequire(builder)('app-builder-lib/out/fileMatcher.js') as ReturnType<typeof builderFileMatchers>;
    } catch {
      // not installed there
    }
  }
  return null;
}

/** A file's stat; a path that is not on this machine (another platform's package) is taken as a file. */
function statOrFile(file: string): fs.Stats {
  return fs.existsSync(file) ? fs.statSync(file) : ({ isDirectory: () => false, isFile: () => true } as fs.Stats);
}

/**
 * A predicate: is this file (absolute, under ROOT) unpacked from app.asar by `asarUnpack`?
 * `matcher` says whose matching answered.
 */
export function asarUnpackFilter(config = builderConfig()): { unpacked: (file: string) => boolean; matcher: 'electron-builder' | 'minimatch' } {
  const patterns = config.asarUnpack ?? [];
  const lib = builderFileMatchers();
  if (lib) {
    const matchers = lib.getFileMatchers(config, 'asarUnpack', path.join(ROOT, 'out'), {
      macroExpander: (s: string) => s,
      customBuildOptions: {},
      globalOutDir: path.join(ROOT, 'release'),
      defaultSrc: ROOT,
    });
    const filter = matchers?.[0]?.createFilter();
    return { unpacked: (file) => (filter ? filter(file, statOrFile(file)) : false), matcher: 'electron-builder' };
  }
  // The same library and options as app-builder-lib's fileMatcher (`{dot: true}`, paths relative to the app).
  const matches = globFilter(patterns);
  return {
    unpacked: (file) => matches(path.relative(ROOT, file).split(path.sep).join('/')),
    matcher: 'minimatch',
  };
}

/**
 * electron-builder's pattern list semantics on a path relative to the app: minimatch with
 * `{dot: true}`, patterns in order, a `!pattern` excluding what earlier ones included, and a plain
 * folder name (no dot, no glob) taken as the whole folder.
 */
export function globFilter(patterns: readonly string[]): (rel: string) => boolean {
  const parsed: Minimatch[] = [];
  for (const raw of patterns) {
    const pattern = path.posix.normalize(raw.replace(/\\/g, '/').replace(/^\.\//, ''));
    const m = new Minimatch(pattern, { dot: true });
    parsed.push(m);
    if (!pattern.includes('.') && !m.hasMagic()) parsed.push(new Minimatch(`${pattern}/**/*`, { dot: true }));
  }
  return (rel) => {
    let match = false;
    for (const m of parsed) if (match === m.negate) match = m.match(rel);
    return match;
  };
}
