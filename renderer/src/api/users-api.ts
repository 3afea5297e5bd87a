/**
 * People and personal keys (issue 43): who I am (`/api/me`), my keys (`/api/me/keys`), and the
 * Users page's `/api/admin/users` (owner and admins).
 */
import type { Allow, KeyScope, KeyView, MeView, NewKeyAnswer, Quotas, Role, UserView } from '../../../server/contracts/users.contract.js';
import type { Http } from './http.js';

export type { KeyScope, KeyView, MeView, NewKeyAnswer, Quotas, UserView };

/** What the Users page sends when it adds or changes someone (a missing field stays as it is). */
export interface UserDraft {
  name?: string;
  role?: Exclude<Role, 'owner'>;
  password?: string;
  quotas?: Quotas | null;
  allow?: Allow | null;
  disabled?: boolean;
}

export class UsersApi {
  constructor(private readonly http: Http) {}

  me(): Promise<MeView> {
    return this.http.get('/api/me');
  }
  keys(): Promise<{ keys: KeyView[] }> {
    return this.http.get('/api/me/keys');
  }
  makeKey(name: string, scope: KeyScope): Promise<NewKeyAnswer> {
    return this.http.post('/api/me/keys', { name, scope });
  }
  revokeKey(id: string): Promise<{ ok: true }> {
    return this.http.delete(`/api/me/keys/${encodeURIComponent(id)}`);
  }
  list(): Promise<{ users: UserView[] }> {
    return this.http.get('/api/admin/users');
  }
  add(draft: UserDraft): Promise<UserView> {
    return this.http.post('/api/admin/users', draft);
  }
  change(id: string, draft: UserDraft): Promise<UserView> {
    return this.http.patch(`/api/admin/users/${encodeURIComponent(id)}`, draft);
  }
  disable(id: string): Promise<UserView> {
    return this.http.delete(`/api/admin/users/${encodeURIComponent(id)}`);
  }
}
