/**
 * Replace several files or folders as one step that either happens completely or not at all:
 * each new version is first built in a hidden staging sibling (same folder, so the same
 * volume), then every target is swapped in by two renames (old → backup, staging → target). A
 * failure while building discards the staging copies; a failure while swapping puts every
 * target swapped so far back. Backups of the last successful swap are kept beside the targets.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pathExists } from '../fs-durable.js';

export interface SwapTarget {
  /** Absolute path of the file or folder to replace (need not exist yet). */
  target: string;
  /** Write the new version at `staging` (a path that does not exist yet). */
  build: (staging: string) => Promise<void>;
}

export interface SwapOptions {
  /** Names this swap's staging and backup copies. */
  id: string;
  /** Injected by tests to make a rename fail midway. */
  rename?: (from: string, to: string) => Promise<void>;
}

const sibling = (target: string, kind: 'staging' | 'backup', id: string) => path.join(path.dirname(target), `.${path.basename(target)}.${kind}-${id}`);

/** Build every target's new version, then swap them all in; throws (with everything as before) on failure. */
export async function applyStaged(targets: readonly SwapTarget[], options: SwapOptions): Promise<void> {
  const rename = options.rename ?? fsp.rename;
  const staged: string[] = [];
  try {
    for (const t of targets) {
      const staging = sibling(t.target, 'staging', options.id);
      await fsp.rm(staging, { recursive: true, force: true });
      await fsp.mkdir(path.dirname(staging), { recursive: true });
      staged.push(staging);
      await t.build(staging);
    }
  } catch (err) {
    await Promise.all(staged.map((s) => fsp.rm(s, { recursive: true, force: true })));
    throw err;
  }

  const undo: Array<() => Promise<void>> = [];
  try {
    for (const t of targets) {
      const staging = sibling(t.target, 'staging', options.id);
      const backup = sibling(t.target, 'backup', options.id);
      if (await pathExists(t.target)) {
        await rename(t.target, backup);
        undo.push(() => rename(backup, t.target));
      }
      await rename(staging, t.target);
      undo.push(() => rename(t.target, staging));
    }
  } catch (err) {
    for (const step of undo.reverse()) await step();
    await Promise.all(staged.map((s) => fsp.rm(s, { recursive: true, force: true })));
    throw err;
  }
  await Promise.all(targets.map((t) => dropOldBackups(t.target, options.id)));
}

/** Remove backups of `target` left by earlier swaps (the one of swap `keepId` stays). */
async function dropOldBackups(target: string, keepId: string): Promise<void> {
  const prefix = `.${path.basename(target)}.backup-`;
  const names = await fsp.readdir(path.dirname(target)).catch(() => [] as string[]);
  await Promise.all(
    names.filter((n) => n.startsWith(prefix) && n !== `${prefix}${keepId}`).map((n) => fsp.rm(path.join(path.dirname(target), n), { recursive: true, force: true })),
  );
}
