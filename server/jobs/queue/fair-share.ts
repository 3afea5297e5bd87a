/**
 * Fair share between submitters (a browser session, an API key client, a chat of the chat bot, a
 * person): jobs are interleaved round-robin rather than first come, first served, so one client
 * queueing fifty jobs does not starve everyone else. A new job of submitter S whose S already has
 * n jobs waiting goes just before the first waiting job that is the (n+1)-th or later of its own
 * submitter: with A's a1 a2 a3 waiting, B's first job lands after a1, B's second after a2.
 * Jobs already handed to an engine (`handed`) count as turns taken: with a1 and a2 on the engine
 * and a3… waiting, B's first job goes before a3, not after it.
 * Manual moves are kept: placement reads the order as it is, it does not re-sort it. A job an admin
 * moved ahead (`pinned`, the urgent mark) is not passed: a new job goes after the last of them,
 * even when the pinned job's submitter has had more turns.
 */
export function fairIndex(waiting: ReadonlyArray<{ submitter: string; pinned?: boolean }>, submitter: string, handed: ReadonlyArray<{ submitter: string }> = []): number {
  const after = waiting.findLastIndex((w) => w.pinned === true) + 1;
  const seen = new Map<string, number>();
  for (const h of handed) seen.set(h.submitter, (seen.get(h.submitter) ?? 0) + 1);
  const round = (seen.get(submitter) ?? 0) + waiting.filter((w) => w.submitter === submitter).length;
  for (let i = 0; i < waiting.length; i++) {
    const who = waiting[i]!.submitter;
    const nth = seen.get(who) ?? 0;
    seen.set(who, nth + 1);
    if (nth > round && i >= after) return i;
  }
  return waiting.length;
}
