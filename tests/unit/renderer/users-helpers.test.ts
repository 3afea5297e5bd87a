/**
 * The renderer's part of accounts (issue 43): which key scopes a person is offered, quotas in
 * words, the navigation by role, and the event filter by person.
 */
import { describe, expect, it } from 'vitest';
import type { StudioEvent } from '../../../renderer/src/api/types.js';
import { navFor } from '../../../renderer/src/navigation.js';
import { matchesEventFilter } from '../../../renderer/src/stores/events.store.js';
import { quotaText, scopesFor } from '../../../renderer/src/stores/users.store.js';

describe('scopesFor', () => {
  it('offers no scope past the role, nor past the key in use', () => {
    expect(scopesFor({ role: 'owner', scope: null })).toEqual(['read', 'run', 'admin']);
    expect(scopesFor({ role: 'admin', scope: 'run' })).toEqual(['read', 'run']);
    expect(scopesFor({ role: 'member', scope: null })).toEqual(['read', 'run']);
    expect(scopesFor({ role: 'viewer', scope: null })).toEqual(['read']);
    expect(scopesFor(null)).toEqual([]);
  });
});

describe('quotaText', () => {
  it('says each limit set, or no limit', () => {
    expect(quotaText(null)).toBe('no limit');
    expect(quotaText({})).toBe('no limit');
    expect(quotaText({ jobs_per_hour: 5, waiting: 0, gpu_seconds_per_day: null })).toBe('5/h · 0 waiting');
  });
});

describe('navFor', () => {
  const links = (admin: boolean) => navFor(admin).flatMap((g) => g.links.map((l) => l.to));
  it('shows admin pages to owners and admins only; My keys and Events to everyone', () => {
    expect(links(true)).toEqual(expect.arrayContaining(['/users', '/system', '/nodes', '/engines', '/chatbot', '/keys', '/events']));
    const member = links(false);
    expect(member).toEqual(expect.arrayContaining(['/home', '/jobs', '/keys', '/events']));
    for (const page of ['/users', '/system', '/nodes', '/engines', '/chatbot']) expect(member).not.toContain(page);
  });
});

describe('matchesEventFilter by person', () => {
  const event = (data: Record<string, unknown>): StudioEvent => ({ id: 'e', type: 'job.completed', severity: 'success', timestamp: '2026-11-28T10:00:00+01:00', message: 'm', data });
  it('keeps only the chosen person\'s events, or everyone\'s', () => {
    expect(matchesEventFilter(event({ user_id: 'u_1' }), { types: [], severities: [], user: 'u_1' })).toBe(true);
    expect(matchesEventFilter(event({ user_id: 'u_2' }), { types: [], severities: [], user: 'u_1' })).toBe(false);
    expect(matchesEventFilter(event({}), { types: [], severities: [], user: 'u_1' })).toBe(false);
    expect(matchesEventFilter(event({}), { types: [], severities: [] })).toBe(true);
  });
});
