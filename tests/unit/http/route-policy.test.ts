/**
 * The route policy's table (issue 43): which reach each method and path family needs, and the
 * actor's reach (role narrowed by a key's scope). The README's "Who may call what" is this table.
 */
import { describe, expect, it } from 'vitest';
import { reachOf, type Actor } from '../../../server/http/actor.js';
import { isAdminChange, requiredReach } from '../../../server/http/route-policy.js';

describe('requiredReach', () => {
  it('lets anyone signed in read, except the admin-only families', () => {
    for (const path of ['/api/admin/history', '/api/admin/queue', '/api/run/status/p1', '/api/admin/presets', '/api/admin/events', '/api/me', '/api/me/keys', '/home', '/api/admin/workflows']) {
      expect(requiredReach('GET', path), path).toBe('read');
    }
    for (const path of ['/api/admin/settings', '/api/admin/settings/env', '/api/admin/users', '/api/admin/nodes', '/api/admin/engines', '/api/admin/setup/releases', '/api/admin/system/remote-version', '/api/admin/outputs-zip', '/Api/Admin/Settings/']) {
      expect(requiredReach('GET', path), path).toBe('admin');
      expect(requiredReach('HEAD', path), path).toBe('admin');
    }
  });

  it('asks run for running and for changes to one\'s own records, admin for every other change', () => {
    for (const [method, path] of [['POST', '/api/run/wf/execute'], ['POST', '/api/admin/presets/a/run'], ['POST', '/api/admin/history/retry'], ['DELETE', '/api/admin/llm/chats/c1'], ['PUT', '/api/admin/presets/a/rename']] as const) {
      expect(requiredReach(method, path), `${method} ${path}`).toBe('run');
    }
    for (const [method, path] of [['PUT', '/api/admin/settings'], ['POST', '/api/admin/nodes/install'], ['POST', '/api/admin/system/update'], ['DELETE', '/api/admin/users/u_1'], ['POST', '/api/admin/some-route-added-later'], ['POST', '/api/run/wf/execute/extra']] as const) {
      expect(requiredReach(method, path), `${method} ${path}`).toBe('admin');
      expect(isAdminChange(method, path)).toBe(true);
    }
    expect(requiredReach('POST', '/api/me/keys')).toBe('read');
    expect(requiredReach('POST', '/api/auth/logout')).toBe('read');
    expect(requiredReach('POST', '/api/notifications/targets')).toBe('read');
    expect(requiredReach('POST', '/api/notifications/targets/t1/test')).toBe('read');
    expect(requiredReach('DELETE', '/api/notifications/targets/t1')).toBe('read');
    expect(isAdminChange('GET', '/api/admin/settings')).toBe(false);
  });
});

describe('reachOf', () => {
  const person = (role: Actor['role'], scope: Actor['scope']): Actor => ({ userId: 'u', name: 'u', role, scope });
  it('is the role narrowed by the key, never widened', () => {
    expect(reachOf(person('owner', null))).toBe('admin');
    expect(reachOf(person('admin', 'run'))).toBe('run');
    expect(reachOf(person('member', null))).toBe('run');
    expect(reachOf(person('member', 'admin'))).toBe('run');
    expect(reachOf(person('viewer', 'run'))).toBe('read');
  });
});
