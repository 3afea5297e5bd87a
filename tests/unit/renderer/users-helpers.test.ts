/**
 * The renderer's part of accounts (issue 43): which key scopes a person is offered, quotas in
 * words, the navigation by role, and the event filter by person.
 */
import { describe, expect, it } from 'vitest';
import type { StudioEvent } from '../../../renderer/src/api/types.js';
import { navFor } from '../../../renderer/src/navigation.js';
import { matchesEventFilter } from '../../../renderer/src/stores/events.store.js';
import { quotaText, scopesFor, quotaUseText } from '../../../renderer/src/stores/users.store.js';
import { ApiError } from '../../../renderer/src/api/http.js';
import { runErrorText } from '../../../renderer/src/lib/errors.js';

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

describe('a refused run and one\'s quotas in words', () => {
  it('says a quota was reached with the time to run again, and names what is not allowed', () => {
    expect(runErrorText(new ApiError(429, '3 jobs per hour reached; you can run again at 14:05'))).toBe('Quota reached: 3 jobs per hour reached; you can run again at 14:05');
    expect(runErrorText(new ApiError(403, 'You may not use the model "x.pth" (UpscaleModelLoader.model_name)'))).toBe('Not allowed: You may not use the model "x.pth" (UpscaleModelLoader.model_name)');
    expect(runErrorText(new ApiError(400, 'steps: too big'))).toBe('steps: too big');
  });

  it('shows use beside the quotas that are set, and nothing without quotas', () => {
    const use = { jobs_this_hour: 2, jobs_today: 5, waiting: 1, gpu_seconds_today: 40 };
    expect(quotaUseText({ quotas: { jobs_per_hour: 3, gpu_seconds_per_day: 3600 }, use })).toBe('2 of 3 jobs this hour · 40 of 3600 GPU-seconds today');
    expect(quotaUseText({ quotas: null, use })).toBeNull();
  });
});
