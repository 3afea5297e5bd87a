/**
 * Disk numbers for the catalog `stats`: bytes under `STUDIO_DIR/models` (walked as the disk page
 * walks it, a hard-linked file once) and free bytes on its volume (`fs.statfs`). Walking
 * thousands of files per page load would be wasteful, so the result is cached for 60 s (spec
 * Limits); Studio's own downloads and deletes invalidate it.
 */
import { distinctBytes, freeBytesOf, walkFiles } from '../free-space.js';

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
    const [models_bytes, free_bytes] = await Promise.all([walkFiles(this.options.modelsDir).then(distinctBytes), freeBytesOf(this.options.modelsDir).then((free) => free ?? 0)]);
    return { models_bytes, free_bytes };
  }
}
