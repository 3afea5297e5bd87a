/**
 * The Disk page's figures, made to add up: a volume's used, free and the part neither (blocks the
 * file system keeps for itself, so `used + free` falls short of the size), and one usage row per
 * kind (logs live in `logs/` and `events.jsonl`, caches in pip's and uv's folders).
 */
import type { DiskUsageRow, DiskVolume } from '../../../../server/contracts/disk.contract.js';

export interface VolumeFigures {
  used: number;
  free: number;
  /** Neither used nor free to Studio: reserved by the file system. */
  reserved: number;
  total: number;
  /** Widths of the bar's three parts, in percent (they sum to 100 when the size is known). */
  usedPct: number;
  reservedPct: number;
}

export function volumeFigures(v: Pick<DiskVolume, 'total_bytes' | 'used_bytes' | 'free_bytes'>): VolumeFigures {
  const total = Math.max(0, v.total_bytes);
  const used = Math.max(0, Math.min(v.used_bytes, total));
  const free = Math.max(0, Math.min(v.free_bytes, total - used));
  const reserved = Math.max(0, total - used - free);
  const pct = (n: number) => (total > 0 ? (n / total) * 100 : 0);
  return { used, free, reserved, total, usedPct: pct(used), reservedPct: pct(reserved) };
}

/** One row per kind, in the report's order: sizes and counts summed, its folders listed once each. */
export function usageByKind(rows: readonly DiskUsageRow[]): Array<{ kind: DiskUsageRow['kind']; paths: string[]; bytes: number; files: number }> {
  const byKind = new Map<string, { kind: DiskUsageRow['kind']; paths: string[]; bytes: number; files: number }>();
  for (const row of rows) {
    const entry = byKind.get(row.kind) ?? { kind: row.kind, paths: [], bytes: 0, files: 0 };
    if (!entry.paths.includes(row.path)) entry.paths.push(row.path);
    entry.bytes += row.bytes;
    entry.files += row.files;
    byKind.set(row.kind, entry);
  }
  return [...byKind.values()];
}
