/**
 * The record of the engine child Studio started (pid, which also names its process group, and
 * port), kept in the data folder while the child runs. A Studio killed with SIGKILL leaves it
 * behind with the child still running: the next start finds its own orphan by it (the mode choice
 * never takes it for an external engine; `engine/engine-orphan.ts` ends it).
 */
import fs from 'node:fs';
import path from 'node:path';

/** One record per port: the pool's per-GPU engines are children too. */
const recordFile = (port: number) => `engine-child-${port}.json`;

export interface EngineChildRecord {
  pid: number;
  port: number;
}

/** Note the engine child Studio just started (its pid is also its process group). */
export function recordEngineChild(engineDir: string, child: EngineChildRecord): void {
  fs.mkdirSync(engineDir, { recursive: true });
  const file = path.join(engineDir, recordFile(child.port));
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(child));
  fs.renameSync(`${file}.tmp`, file);
}

/** The child ended while Studio watched it: nothing to find at the next start. */
export function forgetEngineChild(engineDir: string, port: number): void {
  fs.rmSync(path.join(engineDir, recordFile(port)), { force: true });
}

/** The recorded child when it still runs on `port` (a previous Studio's orphan), else null. */
export function ownOrphan(engineDir: string, port: number): EngineChildRecord | null {
  let record: EngineChildRecord;
  try {
    record = JSON.parse(fs.readFileSync(path.join(engineDir, recordFile(port)), 'utf8')) as EngineChildRecord;
  } catch {
    return null;
  }
  if (!Number.isInteger(record.pid) || record.pid <= 1 || record.pid === process.pid || record.port !== port) return null;
  return isOurEngine(record) ? record : null;
}

/** Alive, not a zombie, and (where /proc tells) started with the recorded port: a reused pid is someone else's. */
function isOurEngine(record: EngineChildRecord): boolean {
  try {
    process.kill(record.pid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = fs.readFileSync(`/proc/${record.pid}/stat`, 'utf8');
    if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '')) return false;
    return fs.readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0').includes(String(record.port));
  } catch {
    return false;
  }
}

