/**
 * The packaged desktop app's folder on Linux, laid out without Electron or electron-builder:
 *
 *   resources/app/                what `files` selects (the compiled code, the built UI,
 *                                 package.json) and the production node_modules: app.asar's content
 *   resources/app.asar.unpacked/  the files `asarUnpack` matches, as real files
 *   resources/workflows/, resources/resources/   `extraResources`
 *
 * A plain `resources/app` folder stands for the archive. What an archive changes is native code:
 * Electron loads an addon from `app.asar.unpacked` when it was unpacked, else it copies the addon
 * alone out to a temp file, where the libraries it expects beside it are missing. `electronShim`
 * writes an `--import` module that does the same to `process.dlopen` and sets
 * `process.resourcesPath` the way Electron does, so the compiled server runs here as it would there.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { asarUnpackFilter, builderConfig, globFilter, productionPackageDirs, ROOT, type BuilderConfig } from './packaging.js';

export interface PackagedLayout {
  /** `<install>/resources`: what `process.resourcesPath` is in the packaged app. */
  resources: string;
  /** `resources/app`: the archive's content. */
  app: string;
  /** `resources/app.asar.unpacked`. */
  unpacked: string;
  /** Paths (relative to the app) `asarUnpack` took out of the archive. */
  unpackedFiles: string[];
}

/** Compile the server and build the UI into `stage` (the project's `dist/` and `renderer/dist/` are left alone). */
export function buildApp(stage: string): void {
  const run = (label: string, command: string, args: string[]) => {
    const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${label} failed (exit ${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  };
  const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
  run('tsc', bin('tsc'), ['-p', 'tsconfig.build.json', '--outDir', path.join(stage, 'dist'), '--sourceMap', 'false']);
  // As `npm run build:server` does: dist/ also holds the one-file server, which `files` leaves out.
  run('bundle', process.execPath, [path.join(ROOT, 'scripts', 'bundle-server.mjs'), path.join(stage, 'dist')]);
  run('vite build', bin('vite'), ['build', '--config', path.join(ROOT, 'renderer', 'vite.config.ts'), '--outDir', path.join(stage, 'renderer', 'dist'), '--emptyOutDir', '--logLevel', 'warn']);
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(stage, 'package.json'));
}

/** Lay out `<target>/resources` from a built `stage` and this checkout's production dependencies. */
export function layOutPackagedApp(stage: string, target: string, config: BuilderConfig = builderConfig()): PackagedLayout {
  const resources = path.join(target, 'resources');
  const app = path.join(resources, 'app');
  const unpacked = path.join(resources, 'app.asar.unpacked');
  const unpackedFiles: string[] = [];
  const { unpacked: isUnpacked } = asarUnpackFilter(config);
  const put = (from: string, rel: string) => {
    place(from, path.join(app, rel));
    // The filter reads paths as electron-builder sees them: relative to the project.
    if (isUnpacked(path.join(ROOT, rel))) {
      place(from, path.join(unpacked, rel));
      unpackedFiles.push(rel);
    }
  };

  const selected = globFilter(config.files);
  for (const rel of walk(stage)) if (selected(rel)) put(path.join(stage, rel), rel);
  // electron-builder adds the production dependencies itself (`files` excludes node_modules).
  for (const dir of productionPackageDirs()) {
    for (const rel of walk(dir, true)) put(path.join(dir, rel), path.join(path.relative(ROOT, dir), rel));
  }
  for (const extra of config.extraResources ?? []) {
    fs.cpSync(path.join(ROOT, extra.from), path.join(resources, extra.to), { recursive: true });
  }
  return { resources, app, unpacked, unpackedFiles };
}

/**
 * An `--import` module for the compiled server: `process.resourcesPath` as Electron sets it, and
 * `process.dlopen` as Electron's archive support does it (unpacked → the real file; packed → a
 * lone copy in a temp folder). Returns its path.
 */
export function electronShim(layout: PackagedLayout, file: string): string {
  const source = `// Written by tests/helpers/packaged-layout.ts: Electron's view of the packaged app, for plain Node.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
process.resourcesPath = ${JSON.stringify(layout.resources)};
const archive = ${JSON.stringify(layout.app + path.sep)};
const unpacked = ${JSON.stringify(layout.unpacked)};
const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  if (!filename.startsWith(archive)) return dlopen.call(this, module, filename, ...rest);
  const rel = filename.slice(archive.length);
  const real = path.join(unpacked, rel);
  if (fs.existsSync(real)) return dlopen.call(this, module, real, ...rest);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'asar-packed-'));
  fs.copyFileSync(filename, path.join(out, path.basename(rel)));
  return dlopen.call(this, module, path.join(out, path.basename(rel)), ...rest);
};
`;
  fs.writeFileSync(file, source);
  return file;
}

/** Hard-link (or copy, across file systems) one file. */
function place(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
  }
}

/** Files under `dir`, relative, with `/`; a package's own `node_modules` is skipped (npm ls lists those packages). */
function walk(dir: string, skipNodeModules = false): string[] {
  const out: string[] = [];
  const visit = (abs: string, rel: string) => {
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!(skipNodeModules && !rel && entry.name === 'node_modules')) visit(path.join(abs, entry.name), childRel);
      } else if (entry.isFile()) {
        out.push(childRel);
      }
    }
  };
  visit(dir, '');
  return out;
}
