/**
 * How the engine child is launched in each mode: command, arguments, working directory,
 * environment and readiness timeout. Pure, so the exact command lines are unit-tested.
 */
import path from 'node:path';
import { APP_ROOT, SHIPPED_ROOT, type Config } from '../config.js';
import type { EngineDirs } from './engine-paths.js';

/** The stand-in is ours and small; it listens within a second or two. */
export const STANDIN_READY_TIMEOUT_MS = 30_000;
/** The real engine imports every custom node pack before it opens its socket. */
export const MANAGED_READY_TIMEOUT_MS = 10 * 60_000;

export interface EngineLaunch {
  command: string;
  args: string[];
  cwd: string;
  /** Undefined: the child inherits the parent's environment. */
  env: NodeJS.ProcessEnv | undefined;
  readyTimeoutMs: number;
}

export interface LaunchContext {
  /** The environment the child inherits (studio passes the one it gave loadConfig). */
  env?: NodeJS.ProcessEnv;
  /** URL of the running module; `.ts` means we run from source under tsx or vitest. */
  moduleUrl?: string;
  /** Where the app's code is (default APP_ROOT); the compiled stand-in is tsc's file in its `dist/`. */
  appRoot?: string;
  /** The Node (or Electron) binary that runs the stand-in. */
  execPath?: string;
}

/** `<paths.engine>/extra_model_paths.yaml`, written before a managed engine starts. */
export function extraModelPathsFile(config: Config): string {
  return path.join(config.paths.engine, 'extra_model_paths.yaml');
}

/** The folders Studio hands an engine it starts (and checks an external engine for, see shared-folders.ts). */
export function studioEngineDirs(config: Config): EngineDirs {
  return { input: config.paths.assetsInput, output: config.paths.assetsOutput, temp: path.join(config.paths.engine, 'temp', 'temp') };
}

/**
 * The engine's `custom_nodes` folder: ENGINE_DIR's when set (managed, or an external engine whose
 * folder Studio was told), the stand-in's own in the data folder, or null (external, unknown).
 */
export function customNodesDirOf(config: Config): string | null {
  if (config.engine.dir) return path.join(config.engine.dir, 'custom_nodes');
  return config.engine.mode === 'standin' ? path.join(config.paths.engine, 'custom_nodes') : null;
}

/** The stand-in engine run by this Node (or Electron-as-Node) binary. */
export function standinLaunch(config: Config, context: LaunchContext = {}): EngineLaunch {
  const moduleUrl = context.moduleUrl ?? import.meta.url;
  const fromSource = moduleUrl.endsWith('.ts');
  const entry = fromSource
    ? ['--import', 'tsx', path.join(APP_ROOT, 'server', 'standin', 'main.ts')]
    : // Not beside this module: bundled (scripts/bundle-server.mjs), its file is the bundle's.
      [path.join(context.appRoot ?? APP_ROOT, 'dist', 'server', 'standin', 'main.js')];
  const { engine, paths } = config;
  const dirs = studioEngineDirs(config);
  const args = [
    ...entry,
    '--port', String(engine.port),
    '--host', '127.0.0.1',
    '--input-directory', dirs.input,
    '--output-directory', dirs.output,
    // The engine puts its temporary files in `<--temp-directory>/temp`.
    '--temp-directory', path.dirname(dirs.temp),
    '--step-ms', String(engine.standinStepMs),
    '--node-ms', String(engine.standinNodeMs),
    '--preview-method', engine.previewMethod,
    // The same model folders a managed engine gets: a workflow is accepted when its files are there.
    '--extra-model-paths-config', extraModelPathsFile(config),
    // Said explicitly: the child cannot count on knowing where a packaged app keeps its resources.
    '--resources-dir', path.join(SHIPPED_ROOT, 'resources', 'standin'),
    // Node packages load like the engine's: imported with the engine's Python (stand-in only flags).
    '--custom-nodes-dir', customNodesDirOf(config) ?? path.join(paths.engine, 'custom_nodes'),
    '--python', engine.python,
    ...(engine.standinObjectInfo ? ['--object-info', engine.standinObjectInfo] : []),
    '--parent-pid', String(process.pid),
  ];
  return {
    command: context.execPath ?? process.execPath,
    args,
    // `--import tsx` resolves tsx from the working directory. Compiled, the app may sit inside an
    // archive that cannot be a working directory, so use our own data folder.
    cwd: fromSource ? APP_ROOT : paths.engine,
    // Under Electron, execPath is the Electron binary: ELECTRON_RUN_AS_NODE makes it plain Node.
    // STUDIO_DIR: the stand-in reads Studio's config for defaults and must see the same data dir.
    env: { ...context.env, STUDIO_DIR: paths.root, ELECTRON_RUN_AS_NODE: '1' },
    readyTimeoutMs: STANDIN_READY_TIMEOUT_MS,
  };
}

/** The real engine: `<python> main.py …` inside ENGINE_DIR. */
export function managedLaunch(config: Config, context: LaunchContext = {}): EngineLaunch {
  const { engine } = config;
  if (!engine.dir) throw new Error('managed engine mode needs ENGINE_DIR');
  const dirs = studioEngineDirs(config);
  return {
    command: engine.python,
    args: [
      'main.py',
      '--listen', '127.0.0.1',
      '--port', String(engine.port),
      '--input-directory', dirs.input,
      '--output-directory', dirs.output,
      '--temp-directory', path.dirname(dirs.temp),
      '--extra-model-paths-config', extraModelPathsFile(config),
      '--disable-auto-launch',
      // Sampler previews only flow when a method is set (the engine's default is none).
      '--preview-method', engine.previewMethod,
      // Last, so the user's flags win over the ones above (argparse keeps the last value).
      ...engine.extraArgs,
    ],
    cwd: engine.dir,
    env: context.env,
    readyTimeoutMs: MANAGED_READY_TIMEOUT_MS,
  };
}
