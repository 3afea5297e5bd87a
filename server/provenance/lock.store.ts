/**
 * Job locks in SQLite (`job_locks`, migration 17): one JSON row per job, removed with its job.
 */
import type { Db } from '../db/database.js';
import { jobLockSchema, type JobLock } from '../contracts/provenance.contract.js';

export class LockStore {
  private readonly getStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { lock: string }>('SELECT lock FROM job_locks WHERE prompt_id = ?');
    this.putStmt = db.prepare('INSERT OR REPLACE INTO job_locks (prompt_id, lock, recorded_ms) VALUES (?, ?, ?)');
  }

  get(promptId: string): JobLock | null {
    const row = this.getStmt.get(promptId);
    if (!row) return null;
    const parsed = jobLockSchema.safeParse(JSON.parse(row.lock));
    return parsed.success ? parsed.data : null;
  }

  put(lock: JobLock): void {
    this.putStmt.run(lock.prompt_id, JSON.stringify(lock), Date.now());
  }
}
