import { describe, expect, it } from 'vitest';
import { fairIndex } from '../../../server/jobs/queue/fair-share.js';

/** Queue `jobs` (submitter letters) one by one at their fair places; the resulting order. */
function queueAll(jobs: string): string {
  const order: Array<{ submitter: string; name: string }> = [];
  const counts = new Map<string, number>();
  for (const s of jobs) {
    const n = (counts.get(s) ?? 0) + 1;
    counts.set(s, n);
    order.splice(fairIndex(order, s), 0, { submitter: s, name: `${s}${n}` });
  }
  return order.map((o) => o.name).join(' ');
}

describe('fair share', () => {
  it('interleaves a late submitter with one that queued many', () => {
    expect(queueAll('aaaab')).toBe('a1 b1 a2 a3 a4');
    expect(queueAll('aaaabb')).toBe('a1 b1 a2 b2 a3 a4');
  });

  it('goes round-robin across three submitters', () => {
    expect(queueAll('aaabbbccc')).toBe('a1 b1 c1 a2 b2 c2 a3 b3 c3');
  });

  it('keeps one submitter first come, first served', () => {
    expect(queueAll('aaa')).toBe('a1 a2 a3');
  });

  it('keeps a manual order it finds: a job moved to the front stays there', () => {
    const moved = [
      { submitter: 'a', name: 'a3' },
      { submitter: 'a', name: 'a1' },
      { submitter: 'a', name: 'a2' },
    ];
    expect(fairIndex(moved, 'b')).toBe(1);
  });

  it('counts jobs already on an engine as turns taken', () => {
    const waiting = ['a3', 'a4', 'a5'].map((name) => ({ submitter: 'a', name }));
    const handed = [{ submitter: 'a' }, { submitter: 'a' }];
    expect(fairIndex(waiting, 'b')).toBe(1);
    expect(fairIndex(waiting, 'b', handed)).toBe(0);
  });

  it('does not pass a job an admin moved ahead, even when its submitter has had more turns', () => {
    const waiting = [{ submitter: 'a', name: 'a3', pinned: true }, ...['b1', 'a4'].map((name) => ({ submitter: name[0]!, name }))];
    const handed = [{ submitter: 'a' }, { submitter: 'a' }];
    // Unpinned, c's first job would go before a3 (a has had two turns); pinned, a3 stays next.
    expect(fairIndex(waiting.map((w) => ({ ...w, pinned: false })), 'c', handed)).toBe(0);
    expect(fairIndex(waiting, 'c', handed)).toBe(2);
  });
});
