/**
 * The engine pool (`/api/admin/engines`): list, add a ComfyUI or a Studio agent by URL, remove.
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
  remove(id: string): Promise<{ removed: string }> {
    return this.http.delete(`/api/admin/engines/${encodeURIComponent(id)}`);
  }
}
