/**
 * What job records point at, read-only, for the orphan finder: the output folders they own and
 * the input files recent jobs used. The `jobs` table stays the jobs capability's to write.
 */
import type { Db } from '../db/database.js';

export class JobRefsStore {
  constructor(private readonly db: Db) {}

  /** Every output folder a job record names. */
  outputFolders(): Set<string> {
    const rows = this.db.prepare<[], { output_dir: string }>('SELECT output_dir FROM jobs WHERE output_dir IS NOT NULL').all();
    return new Set(rows.map((row) => row.output_dir));
  }

  /** The text of every job created since `sinceMs` that can name an input (its input image and parameters). */
  inputMentionsSince(sinceMs: number): string[] {
    const rows = this.db.prepare<[number], { input_image: string | null; params: string }>('SELECT input_image, params FROM jobs WHERE created_ms >= ?').all(sinceMs);
    return rows.flatMap((row) => [row.input_image ?? '', row.params]);
  }
}
