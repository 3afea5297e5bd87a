/**
 * Finding engine installs already on the machine: ENGINE_DIR, an engine answering on ENGINE_PORT,
 * and the usual places (a `ComfyUI` folder in the home and documents folders, the ComfyUI desktop
 * app's base path from its own config file, Stability Matrix's packages folder,
 * `/workspace/ComfyUI`, and Studio's own installs), each with its version and whether its Python
 * has a working torch for this GPU.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { GpuBackend } from '../contracts/gpu.contract.js';
import type { FoundInstall } from '../contracts/setup.contract.js';
import { findExecutable } from '../process/find-executable.js';
import { engineVersionOf, isEngineDir } from './engine-version.js';
import { checkTorch } from '../gpu/index.js';

export interface FinderContext {
  home: string;
  platform: NodeJS.Platform;
  /** `%APPDATA%` on Windows (the desktop app and Stability Matrix keep their data there). */
  appData: string | null;
  /** ENGINE_DIR and ENGINE_PYTHON as configured (by the environment or the stored choice). */
  configured: { dir: string | null; python: string; label: string } | null;
  /** The engine in use (marked `in_use`). */
  inUseDir: string | null;
  /** `http://127.0.0.1:<ENGINE_PORT>` when an engine not started by Studio may answer there; null to skip. */
  portUrl: string | null;
  /** Studio's own installs: `STUDIO_DIR/engine`. */
  studioEngines: string;
  backend: GpuBackend;
  env: NodeJS.ProcessEnv;
}

interface Candidate {
  dir: string;
  place: string;
  python?: string | null;
  models?: string | null;
  problem?: string | null;
}

/** Every install found, the one in use first. */
export async function findInstalls(ctx: FinderContext): Promise<FoundInstall[]> {
  const seen = new Set<string>();
  const out: FoundInstall[] = [];
  for (const c of await candidatePlaces(ctx)) {
    const real = await fsp.realpath(c.dir).catch(() => null);
    if (!real || seen.has(real)) continue;
    if (!(await isEngineDir(real)) && !c.problem) continue;
    seen.add(real);
    out.push(await describe(c, real, ctx));
  }
  if (ctx.portUrl) {
    const running = await runningEngine(ctx.portUrl);
    if (running) out.push(running);
  }
  return out.sort((a, b) => Number(b.in_use) - Number(a.in_use));
}

async function describe(c: Candidate, dir: string, ctx: FinderContext): Promise<FoundInstall> {
  // Beside the folder as it was found (a link to an engine elsewhere keeps its own venv beside the link), then beside the real folder.
  const named = c.python !== undefined ? c.python : ((await pythonOf(c.dir, ctx.platform)) ?? (await pythonOf(dir, ctx.platform)));
  // A bare name (ENGINE_PYTHON=python3) is looked up the way the engine's start would find it.
  const python = named ? await findExecutable(named, ctx.env) : null;
  const models = c.models !== undefined ? c.models : path.join(dir, 'models');
  const inUse = ctx.inUseDir !== null && (await fsp.realpath(ctx.inUseDir).catch(() => ctx.inUseDir)) === dir;
  // Torch is asked only of a Python that exists: a missing one is a problem, not a slow timeout.
  const torch = python ? await checkTorch(python, ctx.backend, ctx.env, { cwd: dir }) : null;
  const problem = c.problem ?? (python ? (torch?.works === false ? torch.problem : null) : 'no Python environment found beside it');
  return {
    dir,
    place: c.place,
    version: await engineVersionOf(dir, ctx.env),
    python,
    torch,
    models_dir: models && fs.existsSync(models) ? models : null,
    running: false,
    in_use: inUse,
    problem,
  };
}

async function candidatePlaces(ctx: FinderContext): Promise<Candidate[]> {
  const { home, platform } = ctx;
  const out: Candidate[] = [];
  if (ctx.configured?.dir) out.push({ dir: ctx.configured.dir, place: ctx.configured.label, python: ctx.configured.python });
  out.push(...(await studioInstalls(ctx.studioEngines)));
  out.push({ dir: path.join(home, 'ComfyUI'), place: 'home' }, { dir: path.join(home, 'Documents', 'ComfyUI'), place: 'documents' });
  out.push(...(await desktopApp(ctx)));
  for (const pkg of await stabilityMatrixPackages(ctx)) out.push({ dir: pkg, place: 'stability-matrix' });
  if (platform !== 'win32') out.push({ dir: '/workspace/ComfyUI', place: 'workspace' });
  return out;
}

/** `STUDIO_DIR/engine/<version>/ComfyUI` with its `venv`. */
async function studioInstalls(root: string): Promise<Candidate[]> {
  const entries = await fsp.readdir(root, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && fs.existsSync(path.join(root, e.name, 'ComfyUI')))
    .map((e) => ({ dir: path.join(root, e.name, 'ComfyUI'), place: 'studio', python: venvPython(path.join(root, e.name, 'venv'), process.platform) }));
}

/**
 * The ComfyUI desktop app keeps `basePath` (models, custom nodes, its `.venv`) in its config
 * file; the engine's code ships inside the app itself.
 */
async function desktopApp(ctx: FinderContext): Promise<Candidate[]> {
  const configDir =
    ctx.platform === 'win32' ? (ctx.appData ? path.join(ctx.appData, 'ComfyUI') : null)
    : ctx.platform === 'darwin' ? path.join(ctx.home, 'Library', 'Application Support', 'ComfyUI')
    : path.join(ctx.home, '.config', 'ComfyUI');
  if (!configDir) return [];
  let basePath: unknown;
  try {
    basePath = (JSON.parse(await fsp.readFile(path.join(configDir, 'config.json'), 'utf8')) as { basePath?: unknown }).basePath;
  } catch {
    return [];
  }
  if (typeof basePath !== 'string' || !basePath) return [];
  const python = venvPython(path.join(basePath, '.venv'), ctx.platform);
  const models = path.join(basePath, 'models');
  const codeDirs = [
    basePath,
    path.join(basePath, 'ComfyUI'),
    ctx.platform === 'darwin' ? '/Applications/ComfyUI.app/Contents/Resources/ComfyUI' : null,
    ctx.platform === 'win32' && ctx.appData ? path.join(path.dirname(ctx.appData), 'Local', 'Programs', '@comfyorgcomfyui-electron', 'resources', 'ComfyUI') : null,
  ].filter((d): d is string => Boolean(d));
  for (const dir of codeDirs) if (await isEngineDir(dir)) return [{ dir, place: 'desktop-app', python, models }];
  return [{ dir: basePath, place: 'desktop-app', python, models, problem: "the desktop app's engine code was not found beside its base path (run it from the app, or point Studio at its folder)" }];
}

/** Stability Matrix's `Packages/` (its data folder, or a portable `Data/` folder beside it). */
async function stabilityMatrixPackages(ctx: FinderContext): Promise<string[]> {
  const roots =
    ctx.platform === 'win32' ? (ctx.appData ? [path.join(ctx.appData, 'StabilityMatrix')] : [])
    : ctx.platform === 'darwin' ? [path.join(ctx.home, 'Library', 'Application Support', 'StabilityMatrix')]
    : [path.join(ctx.home, '.config', 'StabilityMatrix'), path.join(ctx.home, 'StabilityMatrix', 'Data')];
  const out: string[] = [];
  for (const root of roots) {
    const packages = path.join(root, 'Packages');
    for (const entry of await fsp.readdir(packages, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory()) out.push(path.join(packages, entry.name));
    }
  }
  return out;
}

/** The install's own environment: `venv/` or `.venv/` inside it, or the portable build's `python_embeded`. */
async function pythonOf(dir: string, platform: NodeJS.Platform): Promise<string | null> {
  const options = [
    venvPython(path.join(dir, 'venv'), platform),
    venvPython(path.join(dir, '.venv'), platform),
    venvPython(path.join(path.dirname(dir), 'venv'), platform),
    path.join(path.dirname(dir), 'python_embeded', 'python.exe'),
  ];
  return options.find((python) => fs.existsSync(python)) ?? null;
}

/** The interpreter inside a virtual environment. */
export function venvPython(venv: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? path.join(venv, 'Scripts', 'python.exe') : path.join(venv, 'bin', 'python');
}

/** An engine answering on ENGINE_PORT that Studio did not start: usable as an external engine. */
async function runningEngine(url: string): Promise<FoundInstall | null> {
  try {
    const res = await fetch(`${url}/system_stats`, { signal: AbortSignal.timeout(2_000) });
    if (!res.ok) return null;
    const body = (await res.json()) as { system?: { comfyui_version?: string } };
    return { dir: url, place: 'port', version: body.system?.comfyui_version ?? null, python: null, torch: null, models_dir: null, running: true, in_use: false, problem: null };
  } catch {
    return null;
  }
}
