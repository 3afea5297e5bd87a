/**
 * The batch endpoints (issue 45): URLs and bodies in one place, for the Run page's batch panel and
 * the Batch page.
 */
import type { BatchCreateBody, BatchCreated, BatchDetail, BatchSummary } from '../../../server/contracts/batches.contract.js';
import type { Http } from './http.js';

export type { BatchCreateBody, BatchDetail, BatchSummary };

const BASE = '/api/admin/batches';
const one = (id: string): string => `${BASE}/${encodeURIComponent(id)}`;

export class BatchesApi {
  constructor(private readonly http: Http) {}

  create(body: BatchCreateBody): Promise<BatchCreated> {
    return this.http.post(BASE, body);
  }
  list(): Promise<BatchSummary[]> {
    return this.http.get(BASE);
  }
  detail(id: string): Promise<BatchDetail> {
    return this.http.get(one(id));
  }
  act(id: string, action: 'pause' | 'resume' | 'cancel'): Promise<BatchSummary> {
    return this.http.post(`${one(id)}/${action}`);
  }
  /** The labelled grid image, `x` across and `y` down (indexes of the axes). */
  gridUrl(id: string, x: number, y: number | null): string {
    return this.http.url(`${one(id)}/grid.png`, { x, y });
  }
  zipUrl(id: string): string {
    return this.http.url(`${one(id)}/outputs.zip`);
  }
  csvUrl(id: string): string {
    return this.http.url(`${one(id)}/map.csv`);
  }
}
