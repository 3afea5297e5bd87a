/**
 * The first-run guide's own state (`/api/admin/system/first-run`): shown or dismissed, steps
 * ticked by hand, the LAN addresses, and whether another device signed in.
 */
import type { FirstRunBody, FirstRunReport } from '../../../server/contracts/first-run.contract.js';
import type { Http } from './http.js';

export type { FirstRunBody, FirstRunReport } from '../../../server/contracts/first-run.contract.js';

export class FirstRunApi {
  constructor(private readonly http: Http) {}

  report(): Promise<FirstRunReport> {
    return this.http.get('/api/admin/system/first-run');
  }
  update(body: FirstRunBody): Promise<FirstRunReport> {
    return this.http.put('/api/admin/system/first-run', body);
  }
}
