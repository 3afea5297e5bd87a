/**
 * The data directory (STUDIO_DIR): where it is, its layout, creating it on boot, and the session
 * secret kept in it: 48 random bytes, created once with mode 0600 and reused, so sessions survive
 * restarts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SECRET_BYTES = 48;

export interface DataPaths {
  root: string;
  sessionSecret: string;
  db: string;
  dbFile: string;
  eventsFile: string;
  assetsInput: string;
  assetsOutput: string;
  jobs: string;
  workflows: string;
  catalogs: string;
  models: string;
  llm: string;
  llmModels: string;
  llmConfig: string;
  presets: string;
  gallery: string;
  logs: string;
  engine: string;
  repo: string;
}

/** The data directory layout under STUDIO_DIR (see the README). */
export function dataPaths(root: string): DataPaths {
  const p = (...parts: string[]) => path.join(root, ...parts);
  return {
    root,
    sessionSecret: p('.session_secret'),
    db: p('db'),
    dbFile: p('db', 'studio.db'),
    eventsFile: p('events.jsonl'),
    assetsInput: p('assets', 'input'),
    assetsOutput: p('assets', 'output'),
    jobs: p('jobs'),
    workflows: p('workflows'),
    catalogs: p('catalogs'),
    models: p('models'),
    llm: p('llm'),
    llmModels: p('llm', 'models'),
    llmConfig: p('llm', 'config.json'),
    presets: p('presets'),
    gallery: p('gallery'),
    logs: p('logs'),
    engine: p('engine'),
    repo: p('.repo'),
  };
}

/**
 * The data directory in force: STUDIO_DIR when set; else `preferred` (STUDIO_DIR's default) when
 * it can be created and written; else the platform's per-user data directory, with
 * `fallbackFrom` saying which default was given up (main logs it).
 */
export function resolveStudioDir(
  explicit: string | null,
  preferred: string,
  env: NodeJS.ProcessEnv,
): { studioDir: string; fallbackFrom: string | null } {
  if (explicit) return { studioDir: explicit, fallbackFrom: null };
  try {
    fs.mkdirSync(preferred, { recursive: true });
    fs.accessSync(preferred, fs.constants.W_OK);
    return { studioDir: preferred, fallbackFrom: null };
  } catch {
    return { studioDir: path.join(platformDataDir(env), 'studio'), fallbackFrom: preferred };
  }
}

/** The per-user application data directory of this platform (the platform's variables, not Studio's). */
function platformDataDir(env: NodeJS.ProcessEnv): string {
  const home = os.homedir();
  if (process.platform === 'win32') return env.APPDATA?.trim() || path.join(home, 'AppData', 'Roaming');
  if (process.platform === 'darwin') return path.join(home, 'Library', 'Application Support');
  return env.XDG_DATA_HOME?.trim() || path.join(home, '.local', 'share');
}

/** Create every directory of the layout (idempotent). */
export function ensureDataDir(paths: DataPaths): void {
  for (const dir of [
    paths.root,
    paths.db,
    paths.assetsInput,
    paths.assetsOutput,
    paths.jobs,
    paths.workflows,
    paths.catalogs,
    paths.models,
    paths.llmModels,
    paths.presets,
    paths.gallery,
    paths.logs,
    paths.engine,
  ]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  // The data directory holds the session secret, tokens and the database: Studio's user only.
  if (process.platform !== 'win32') fs.chmodSync(paths.root, 0o700);
}

/** The persisted session secret, created on first boot. */
export function loadSessionSecret(file: string): Buffer {
  try {
    const existing = fs.readFileSync(file);
    if (existing.length >= 32) {
      if (process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
      return existing;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = crypto.randomBytes(SECRET_BYTES);
  const tmp = path.join(path.dirname(file), `.session_secret.${process.pid}.tmp`);
  fs.writeFileSync(tmp, secret, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return secret;
}
