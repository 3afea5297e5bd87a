/**
 * Making an engine Studio's engine: the stored choice (`config/engine-choice.ts`) names it, the
 * engine in use before it is kept for rollback, and Studio restarts so every part of it (the
 * engine supervisor, node installs, the disk page) follows the same engine from its first line.
 */
import { readEngineChoice, writeEngineChoice, type EngineRef } from '../config/engine-choice.js';

export interface SwitchTarget {
  dir: string;
  python: string;
  version: string | null;
  origin: EngineRef['origin'];
  mode: 'managed' | 'external';
  extraModelDirs: string[];
}

/** Store `target` as the engine; the current one (stored, or the environment's managed one) goes to the front of `previous`. */
export function storeSwitch(studioDir: string, target: SwitchTarget, running: { dir: string | null; python: string; version: string | null } | null): void {
  const choice = readEngineChoice(studioDir);
  const now = new Date().toISOString();
  const outgoing: EngineRef | null = choice.current
    ? { dir: choice.current.dir, python: choice.current.python, version: choice.current.version, origin: choice.current.origin, extra_model_dirs: choice.current.extra_model_dirs, chosen_at: choice.current.chosen_at }
    : running?.dir
      ? { dir: running.dir, python: running.python, version: running.version, origin: 'found', extra_model_dirs: [], chosen_at: now }
      : null;
  const previous = [outgoing, ...choice.previous].filter((ref): ref is EngineRef => ref !== null && ref.dir !== target.dir);
  writeEngineChoice(studioDir, {
    ...choice,
    current: { dir: target.dir, python: target.python, version: target.version, origin: target.origin, extra_model_dirs: target.extraModelDirs, chosen_at: now, mode: target.mode },
    previous: dedupe(previous),
    standin_chosen: false,
  });
}

/** The user keeps the stand-in: the setup page stops opening by itself. */
export function storeStandin(studioDir: string): void {
  writeEngineChoice(studioDir, { ...readEngineChoice(studioDir), standin_chosen: true });
}

/** Forget a kept version (its folder is removed by the caller when Studio installed it). */
export function storeRemoval(studioDir: string, dir: string): EngineRef | null {
  const choice = readEngineChoice(studioDir);
  const ref = choice.previous.find((r) => r.dir === dir) ?? null;
  if (ref) writeEngineChoice(studioDir, { ...choice, previous: choice.previous.filter((r) => r.dir !== dir) });
  return ref;
}

function dedupe(refs: EngineRef[]): EngineRef[] {
  const seen = new Set<string>();
  return refs.filter((ref) => !seen.has(ref.dir) && seen.add(ref.dir));
}
