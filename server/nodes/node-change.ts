/**
 * What every node package change shares: one change at a time (a second waits for the first),
 * the environment, the snapshot store, the records of Studio's installs, the engine check, the
 * activity log and events; and the one rollback path: restore the snapshot taken before the
 * change, restart the engine if it had loaded the change, and say why in plain words.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../domain-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { NodeSnapshot } from '../contracts/nodes.contract.js';
import type { EngineCheck } from './engine-check.js';
import type { NodeEnvironment } from './node-environment.js';
import type { NodeRecordStore } from './node-records.store.js';
import type { NodeSnapshotStore } from './node-snapshots.store.js';
import type { UnfinishedInstallStore } from './unfinished-installs.store.js';

/** Spec Limits: install error text. */
const INSTALL_ERROR_CHARS = 500;

export interface NodeChangeDeps {
  /** Null when Studio does not know the engine's folder (an external engine without ENGINE_DIR). */
  env: NodeEnvironment | null;
  snapshots: NodeSnapshotStore;
  records: NodeRecordStore;
  /** New installs under way: one left behind marks the folder a crash left half-installed. */
  unfinished: UnfinishedInstallStore;
  check: EngineCheck;
  events: EventBus;
  scratchDir: string;
  timeouts: { cloneTimeoutMs: number; pipTimeoutMs: number; scriptTimeoutMs: number };
  log: (level: 'info' | 'ok' | 'error', message: string) => void;
}

export class NodeChanges {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly deps: NodeChangeDeps) {}

  /** The environment, or a 400 saying why Studio cannot change it. */
  environment(): NodeEnvironment {
    if (!this.deps.env) throw new DomainError('invalid', "Studio does not know this engine's folder: set ENGINE_DIR to install node packages");
    return this.deps.env;
  }

  /** Run `work` after any change already running. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Take and store a snapshot before a change. */
  async snapshot(reason: string): Promise<NodeSnapshot> {
    const snap = await this.deps.snapshots.add(await this.environment().snapshot(reason));
    this.deps.log('info', `Snapshot ${snap.id} taken ${reason}`);
    return snap;
  }

  /**
   * Undo a failed change: put `snap` back and, when the engine had been restarted with the change,
   * restart it again. Throws a 500 whose words say what failed and that the engine is as it was.
   */
  async rollback(what: string, reason: string, snap: NodeSnapshot, engineRestarted: boolean): Promise<never> {
    this.deps.log('error', `${what}: ${reason}`);
    let back = `Studio put the engine back as it was (snapshot ${snap.id})`;
    try {
      await this.environment().restore(snap);
      if (engineRestarted) {
        const failed = await this.deps.check.restart();
        if (failed) back += `, but ${failed}`;
      }
    } catch (err) {
      back = `Studio could not put everything back (${err instanceof Error ? err.message : String(err)}); restore snapshot ${snap.id} by hand on the Nodes page`;
    }
    this.deps.log('info', back);
    throw new DomainError('failed', clip(`${what}: ${reason}. ${back}.`, reason), { rolled_back: true, snapshot_id: snap.id });
  }
}

/** Move a folder, across volumes too (a scratch clone may live on another disk than the engine). */
export async function moveFolder(from: string, to: string): Promise<void> {
  await fsp.mkdir(path.dirname(to), { recursive: true });
  try {
    await fsp.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fsp.cp(from, to, { recursive: true, verbatimSymlinks: true });
    await fsp.rm(from, { recursive: true, force: true });
  }
}

/**
 * Spec: `detail` at most 500 characters. The long part is the tool's output (`reason`): it is cut
 * from the front, where pip's and git's preamble is, keeping the words around it whole.
 */
export function clip(text: string, longPart = ''): string {
  if (text.length <= INSTALL_ERROR_CHARS) return text;
  const over = text.length - INSTALL_ERROR_CHARS + 1;
  if (longPart.length > over) {
    const at = text.indexOf(longPart);
    return `${text.slice(0, at)}…${longPart.slice(over)}${text.slice(at + longPart.length)}`;
  }
  return `…${text.slice(-(INSTALL_ERROR_CHARS - 1))}`;
}
