/**
 * Disk numbers for the catalog `stats`: bytes under `STUDIO_DIR/models` (walked) and free bytes
 * on its volume (`fs.statfs`). Walking thousands of files per page load would be wasteful, so
 * the result is cached for 60 s (spec Limits); Studio's own downloads and deletes invalidate it.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { freeBytesOf } from '../free-space.js';

export interface DiskNumbers {
  models_bytes: number;
  free_bytes: number;
}

export interface DiskUsageOptions {
  modelsDir: string;
  ttlMs?: number;
  now?: () => number;
}

/** Cached disk usage of the models folder. */
export class DiskUsage {
  private cached: { at: number; value: Promise<DiskNumbers> } | null = null;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: DiskUsageOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? (() => Date.now());
  }

  /** The numbers, computed at most once per `ttlMs` (concurrent callers share one walk). */
  get(): Promise<DiskNumbers> {
    const now = this.now();
    if (!this.cached || now - this.cached.at >= this.ttlMs) {
      const value = this.measure();
      this.cached = { at: now, value };
      // A failed measurement must not stick for a minute.
      value.catch(() => {
        if (this.cached?.value === value) this.cached = null;
      });
    }
    return this.cached.value;
  }

  /** Forget the cached numbers (files were added or removed). */
  invalidate(): void {
    this.cached = null;
  }

  private async measure(): Promise<DiskNumbers> {
    const [models_bytes, free_bytes] = await Promise.all([directoryBytes(this.options.modelsDir), freeBytesOf(this.options.modelsDir).then((free) => free ?? 0)]);
    return { models_bytes, free_bytes };
  }
}

/** Sum of the sizes of every file below `dir` (symlinks are not followed; missing dir → 0). */
async function directoryBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  const sizes = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return directoryBytes(full);
      if (!entry.isFile()) return 0;
      try {
        return (await fsp.stat(full)).size;
      } catch {
        return 0;
      }
    }),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}
