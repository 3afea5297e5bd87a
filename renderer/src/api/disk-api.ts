/**
 * The disk page: usage per volume and kind, duplicated model files (hard-linked on request) and
 * unused files (deleted on request). Both changes need `confirm: true`.
 */
import type { DeleteOrphansResult, DiskReport, DuplicatesReport, LinkResult, OrphansReport, RetentionPlan, RetentionRule, RetentionState } from '../../../server/contracts/disk.contract.js';
import type { Http } from './http.js';

export type { DiskReport, DuplicatesReport, OrphansReport, RetentionPlan, RetentionRule, RetentionState };

export class DiskApi {
  constructor(private readonly http: Http) {}

  report(): Promise<DiskReport> {
    return this.http.get('/api/admin/disk');
  }
  duplicates(): Promise<DuplicatesReport> {
    return this.http.get('/api/admin/disk/duplicates');
  }
  link(sha256: string): Promise<LinkResult> {
    return this.http.post('/api/admin/disk/duplicates/link', { sha256, confirm: true });
  }
  orphans(inputDays: number): Promise<OrphansReport> {
    return this.http.get('/api/admin/disk/orphans', { input_days: String(inputDays) });
  }
  deleteOrphans(paths: string[], inputDays: number): Promise<DeleteOrphansResult> {
    return this.http.post('/api/admin/disk/orphans/delete', { paths, confirm: true, input_days: inputDays });
  }
  retention(): Promise<RetentionState> {
    return this.http.get('/api/admin/disk/retention');
  }
  previewRetention(rule: RetentionRule): Promise<RetentionPlan> {
    return this.http.post('/api/admin/disk/retention/preview', rule);
  }
  saveRetention(enabled: boolean, rule: RetentionRule): Promise<RetentionState> {
    return this.http.put('/api/admin/disk/retention', { enabled, ...rule });
  }
}
