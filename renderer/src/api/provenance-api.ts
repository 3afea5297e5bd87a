/**
 * Provenance (issue 46): a job's lock and how this Studio differs from it, Run again (a job, or a
 * job package ZIP / output PNG brought from anywhere), and the fixes' own requests.
 */
import type { DifferenceFix, JobLock, LockReport, RunAgainResult } from '../../../server/contracts/provenance.contract.js';
import type { Http } from './http.js';

export type { DifferenceFix, LockReport };

export class ProvenanceApi {
  constructor(private readonly http: Http) {}

  lock(promptId: string): Promise<LockReport> {
    return this.http.get(`/api/admin/history/${encodeURIComponent(promptId)}/lock`);
  }
  runJobAgain(promptId: string, runAnyway = false): Promise<RunAgainResult> {
    return this.http.post(`/api/admin/history/${encodeURIComponent(promptId)}/run-again`, runAnyway ? { run_anyway: true } : {});
  }
  /** A job package ZIP or an output PNG: its lock and the differences. */
  importFile(file: File): Promise<LockReport> {
    const form = new FormData();
    form.append('file', file, file.name);
    return this.http.postForm('/api/admin/provenance/import', form);
  }
  runLock(lock: JobLock, runAnyway = false): Promise<RunAgainResult> {
    return this.http.post('/api/admin/provenance/run', { lock, ...(runAnyway ? { run_anyway: true } : {}) });
  }
  /** A fix's request, as the server described it (download a model, install or update a package). */
  applyFix(fix: DifferenceFix): Promise<unknown> {
    if (!fix.request) return Promise.resolve(null);
    return this.http.post(fix.request.path, fix.request.body ?? {});
  }
}
