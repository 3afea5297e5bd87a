/**
 * Storage faults, recognised wherever they come from: a full disk or an exceeded quota (from
 * `fs` or from SQLite) is answered 507 with the free space, a damaged database 500 naming the
 * file and what to do, instead of a bare "Internal server error". Nothing here is remembered:
 * once space is freed the next request simply succeeds.
 */
import fs from 'node:fs';
import type { EventBus } from '../events/event-bus.js';

export type StorageFault = { kind: 'disk_full'; code: string } | { kind: 'corrupt'; code: string };

const DISK_FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/** The storage fault behind `err` (or behind one of its causes), or null. */
function storageFault(err: unknown): StorageFault | null {
  for (let current = err, depth = 0; current && typeof current === 'object' && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (DISK_FULL_CODES.has(code)) return { kind: 'disk_full', code };
      // Extended result codes too (`SQLITE_CORRUPT_INDEX`, …).
      if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return { kind: 'corrupt', code };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export interface StorageFaultOptions {
  /** Studio's data directory: the volume whose free space the 507 reports. */
  dataDir: string;
  /** The database file a corrupt-database answer names. */
  dbFile: string;
  /** Told of each fault (at most once a minute per kind): the composition root emits a warning event. */
  onFault?: (fault: StorageFault, detail: string) => void;
  now?: () => number;
}

const REPORT_EVERY_MS = 60_000;

/** Turns storage faults into answers and tells `onFault`, without flooding it. */
export class StorageFaults {
  private readonly lastReport = new Map<StorageFault['kind'], number>();

  constructor(private readonly options: StorageFaultOptions) {}

  /** The status and detail for `err`, or null when it is no storage fault. */
  answer(err: unknown): { status: number; detail: string } | null {
    const fault = storageFault(err);
    if (!fault) return null;
    const detail = fault.kind === 'disk_full' ? this.diskFullDetail() : this.corruptDetail(fault.code);
    this.report(fault, detail);
    return { status: fault.kind === 'disk_full' ? 507 : 500, detail };
  }

  private diskFullDetail(): string {
    const free = freeSpace(this.options.dataDir);
    return `The disk holding Studio's data is full (${free === null ? 'free space unknown' : `${free} free`})`;
  }

  private corruptDetail(code: string): string {
    return (
      `Studio's database ${this.options.dbFile} is damaged (${code}). Stop Studio, keep a copy of that file, ` +
      'then restore it from a backup (or move it aside to start with an empty database) and start Studio again'
    );
  }

  private report(fault: StorageFault, detail: string): void {
    const now = (this.options.now ?? Date.now)();
    const last = this.lastReport.get(fault.kind);
    if (last !== undefined && now - last < REPORT_EVERY_MS) return;
    this.lastReport.set(fault.kind, now);
    this.options.onFault?.(fault, detail);
  }
}

/** `1.2 GB`, `340 KB`, `0 bytes`; null when the volume cannot be asked. */
function freeSpace(dir: string): string | null {
  let bytes: number;
  try {
    const stats = fs.statfsSync(dir);
    bytes = stats.bavail * stats.bsize;
  } catch {
    return null;
  }
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** Storage faults for Studio's data directory and database, each reported as an event. */
export function reportedStorageFaults(deps: { dataDir: string; dbFile: string; events: EventBus }): StorageFaults {
  return new StorageFaults({
    dataDir: deps.dataDir,
    dbFile: deps.dbFile,
    onFault: (fault, detail) =>
      fault.kind === 'disk_full'
        ? deps.events.emit('system.disk_full', 'warning', detail, { code: fault.code })
        : deps.events.emit('system.database', 'error', detail, { code: fault.code, file: deps.dbFile }),
  });
}
