/**
 * The engine pool (`/api/admin/engines`): list, add a ComfyUI or a Studio agent by URL, remove,
 * ask an agent to download a model it lacks.
 */
import type { AddEngineBody, EngineInfo } from '../../../server/contracts/engines.contract.js';
import type { Http } from './http.js';

export type { EngineInfo };

export class EnginesApi {
  constructor(private readonly http: Http) {}

  list(): Promise<{ engines: EngineInfo[]; warning: string }> {
    return this.http.get('/api/admin/engines');
  }
  add(body: AddEngineBody): Promise<EngineInfo> {
    return this.http.post('/api/admin/engines', body);
  }
  /** Ask an agent to download a catalog model it lacks (it verifies the SHA-256). */
  downloadModel(id: string, filename: string): Promise<{ engine_id: string; status: string; file: string }> {
    return this.http.post(`/api/admin/engines/${encodeURIComponent(id)}/models/download`, { filename });
  }
  remove(id: string): Promise<{ removed: string }> {
    return this.http.delete(`/api/admin/engines/${encodeURIComponent(id)}`);
  }
}
