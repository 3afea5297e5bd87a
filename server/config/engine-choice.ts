/**
 * The engine the user chose on the setup page, and its settings, kept in `STUDIO_DIR/engine/engine.json`
 * (a file, not the database: `loadConfig` reads it before the database opens). It replaces
 * ENGINE_DIR / ENGINE_PYTHON: once a choice is stored no environment variable is needed, and an
 * explicit ENGINE_MODE or ENGINE_DIR still wins over it (a deployment's own configuration).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EngineSettingsWire, KeptVersion } from '../contracts/setup.contract.js';
import { PREVIEW_METHODS } from './engine-mode.js';

/**
 * One engine Studio knows: installed by it (`STUDIO_DIR/engine/<version>/`) or found on the
 * machine. `dir` is its folder (its `main.py`), `python` the Python that runs it, `version` its
 * release ("v0.3.40") or what the folder says (`comfyui_version.py`), `chosen_at` when it became
 * the engine (ISO 8601).
 */
export type EngineRef = KeptVersion & {
  /** Extra model folders the engine also reads (a found install's own `models/`). */
  extra_model_dirs: string[];
};

export interface EngineChoice {
  /** The engine in use: `managed` (Studio starts it) or `external` (it runs by itself on the port). */
  current: (EngineRef & { mode: 'managed' | 'external' }) | null;
  /** Earlier engines kept for one-click rollback, newest first, until the user removes them. */
  previous: EngineRef[];
  /** The user chose to keep the stand-in (the setup page no longer opens by itself). */
  standin_chosen: boolean;
  /** Engine settings chosen in the UI; null fields leave the environment's (or the engine's) default. */
  settings: EngineSettingsWire;
}

const EMPTY_SETTINGS: EngineSettingsWire = { extra_args: null, preview_method: null, gpus: null, port: null };
const EMPTY: EngineChoice = { current: null, previous: [], standin_chosen: false, settings: EMPTY_SETTINGS };

/** `STUDIO_DIR/engine/engine.json`. */
function engineChoiceFile(studioDir: string): string {
  return path.join(studioDir, 'engine', 'engine.json');
}

/** The stored choice; the empty one when there is none (or the file is unreadable: the stand-in then runs, and the setup page shows). */
export function readEngineChoice(studioDir: string): EngineChoice {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(engineChoiceFile(studioDir), 'utf8'));
  } catch {
    return structuredClone(EMPTY);
  }
  const value = (raw ?? {}) as Partial<EngineChoice>;
  const settings = { ...EMPTY_SETTINGS, ...(value.settings ?? {}) };
  if (settings.preview_method !== null && !PREVIEW_METHODS.includes(settings.preview_method)) settings.preview_method = null;
  return {
    current: value.current && typeof value.current.dir === 'string' && typeof value.current.python === 'string' ? value.current : null,
    previous: Array.isArray(value.previous) ? value.previous.filter((ref) => typeof ref?.dir === 'string') : [],
    standin_chosen: value.standin_chosen === true,
    settings,
  };
}

/** Store the choice: a temporary file renamed over the old one, so a crash leaves one or the other. */
export function writeEngineChoice(studioDir: string, choice: EngineChoice): void {
  const file = engineChoiceFile(studioDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(choice, null, 2)}\n`);
  fs.renameSync(tmp, file);
}
