/** The engine's own API served by Studio (issue 44): whether it is on, and where clients reach it. */
import type { ComfyApiState } from '../../../server/contracts/comfy-api.contract.js';
import type { Http } from './http.js';

export type { ComfyApiState };

export class ComfyApiSettingsApi {
  constructor(private readonly http: Http) {}

  state(): Promise<ComfyApiState> {
    return this.http.get('/api/admin/comfy-api');
  }
  setEnabled(enabled: boolean): Promise<ComfyApiState> {
    return this.http.put('/api/admin/comfy-api', { enabled });
  }
}
