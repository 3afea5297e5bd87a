/**
 * After a node package change: restart an engine Studio runs, then check that the package's node
 * types appear in `object_info` and that the engine's log of that start shows no import failure
 * for it. The log lines are the engine's own: "Cannot import <path> module for custom nodes: <why>"
 * and, in the import-times list, "<secs> seconds (IMPORT FAILED): <path>".
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { EngineMode } from '../config.js';
import type { ObjectInfo } from '../engine/engine-graph.js';
import { sleep } from '../process/sleep.js';
import { packageOfModule } from '../workflows/node-packages.js';

export interface EngineCheckDeps {
  mode: EngineMode;
  restartEngine: () => Promise<void>;
  /** A fresh `object_info` (the cached one is dropped first). */
  freshObjectInfo: () => Promise<ObjectInfo>;
  /** The supervised engine's log file (`logs/engine.log`). */
  logFile: string;
}

export interface ImportFailure {
  /** The package folder's name as the engine saw it. */
  folder: string;
  reason: string;
}

/** The part of the engine log written since its last start (the supervisor's "starting:" note). */
async function lastStartLog(logFile: string): Promise<string[]> {
  if (!fs.existsSync(logFile)) return [];
  const handle = await fsp.open(logFile, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 4 * 1024 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    let start = 0;
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      if (/\[sup\] starting: /.test(lines[i]!)) {
        start = i;
        break;
      }
    }
    return lines.slice(start);
  } finally {
    await handle.close();
  }
}

/** The import failures the engine logged, by package folder name (`.disabled` kept off). */
function importFailures(lines: readonly string[]): Map<string, ImportFailure> {
  const out = new Map<string, ImportFailure>();
  for (const line of lines) {
    const cannot = /Cannot import (.+?) module for custom nodes: (.*)$/.exec(line);
    if (cannot) {
      const folder = path.basename(cannot[1]!.trim().replace(/[/\\]+$/, '').replace(/\.py$/, ''));
      out.set(folder, { folder, reason: cannot[2]!.trim() });
      continue;
    }
    const failed = /\(IMPORT FAILED\): (.+)$/.exec(line);
    if (failed) {
      const folder = path.basename(failed[1]!.trim().replace(/[/\\]+$/, '').replace(/\.py$/, ''));
      if (!out.has(folder)) out.set(folder, { folder, reason: 'the engine could not import it' });
    }
  }
  return out;
}

export interface CheckOutcome {
  verified: boolean;
  ok: boolean;
  nodeTypes: string[];
  /** Plain words: why it failed, or why it was not checked. */
  note: string | null;
}

/** The node types the engine lists for package `name`. */
function nodeTypesOf(info: ObjectInfo, name: string): string[] {
  return Object.entries(info)
    .filter(([, node]) => packageOfModule(node.python_module) === name)
    .map(([type]) => type)
    .sort();
}

export class EngineCheck {
  constructor(private readonly deps: EngineCheckDeps) {}

  get canRestart(): boolean {
    return this.deps.mode !== 'external';
  }

  /** Restart the engine (when Studio runs it) so it loads the custom nodes folder as it is now. */
  async restart(): Promise<string | null> {
    if (!this.canRestart) return null;
    try {
      await this.deps.restartEngine();
      return null;
    } catch (err) {
      return `the engine did not start again: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /**
   * Restart, then check `name` (expected present, or absent for `expect: 'absent'`). External
   * engines are not restarted or checked: the answer says so.
   */
  async verify(name: string, expect: 'loaded' | 'absent' = 'loaded'): Promise<CheckOutcome> {
    if (!this.canRestart) {
      return { verified: false, ok: true, nodeTypes: [], note: 'The engine is external: restart it yourself to load the change; Studio could not check it.' };
    }
    const failedStart = await this.restart();
    if (failedStart) return { verified: true, ok: false, nodeTypes: [], note: failedStart };
    let info: ObjectInfo;
    try {
      info = await this.deps.freshObjectInfo();
    } catch (err) {
      return { verified: true, ok: false, nodeTypes: [], note: `the engine did not answer object_info after the restart: ${(err as Error).message}` };
    }
    const nodeTypes = nodeTypesOf(info, name);
    if (expect === 'absent') {
      return nodeTypes.length === 0 ? { verified: true, ok: true, nodeTypes, note: null } : { verified: true, ok: false, nodeTypes, note: `the engine still lists its nodes (${nodeTypes.join(', ')})` };
    }
    const failure = (await this.failures()).get(name);
    if (failure) return { verified: true, ok: false, nodeTypes, note: `the engine could not import it: ${failure.reason}` };
    if (nodeTypes.length === 0) return { verified: true, ok: false, nodeTypes, note: 'the engine started but lists none of its node types' };
    return { verified: true, ok: true, nodeTypes, note: null };
  }

  /** The import failures of the engine's last start (waits briefly for the log to be written). */
  async failures(wait = true): Promise<Map<string, ImportFailure>> {
    if (!this.canRestart) return new Map();
    let lines = await lastStartLog(this.deps.logFile);
    // The supervisor notes "ready" once the engine answers; its log writes may trail by a moment.
    for (let i = 0; wait && i < 20 && !lines.some((l) => /\[sup\] ready/.test(l)); i += 1) {
      await sleep(100);
      lines = await lastStartLog(this.deps.logFile);
    }
    return importFailures(lines);
  }
}
