/**
 * The disk page: usage per volume and kind, duplicated model files (hard-linked on request) and
 * unused files (deleted on request). Both changes need `confirm: true`.
 */
import type { DeleteOrphansResult, DiskReport, DuplicatesReport, LinkResult, OrphansReport } from '../../../server/contracts/disk.contract.js';
import type { Http } from './http.js';

export type { DiskReport, DuplicatesReport, OrphansReport };

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
}
