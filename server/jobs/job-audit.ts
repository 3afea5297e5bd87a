/**
 * The audit of work on other people's jobs (issue 43): when an owner or admin deletes, cancels,
 * stars, moves or retries a job another person owns, an `audit.job_action` event says who did it
 * (`data.user_id`, `data.name`) and whose job it was (`data.owner_id`), once the action succeeded.
 * The owner is read before the action (a deleted job has none after it).
 */
import type { EventBus } from '../events/event-bus.js';
import { byWhom } from '../http/audit.js';
import { seesEveryone, type Actor } from '../http/actor.js';

export type JobAction = 'delete' | 'cancel' | 'star' | 'move' | 'retry';

/** Runs `act` and records it for each named job that belongs to someone other than `actor`. */
export type AuditedJobAction = <T>(actor: Actor, action: JobAction, promptIds: readonly string[], act: () => T | Promise<T>) => Promise<T>;

/** The audit wrapper over the job store's owner look-up. */
export function jobAudit(events: EventBus, ownerOf: (promptId: string) => string | null | undefined): AuditedJobAction {
  return async (actor, action, promptIds, act) => {
    // A member reaches only their own jobs; only owners and admins can act on someone else's.
    const foreign = seesEveryone(actor) ? promptIds.flatMap((id) => {
      const owner = ownerOf(id);
      return owner && owner !== actor.userId ? [{ id, owner }] : [];
    }) : [];
    const result = await act();
    for (const { id, owner } of foreign) {
      events.emit('audit.job_action', 'info', `${actor.name}: ${action} of ${owner}'s job ${id}`, { ...byWhom(actor), action, prompt_id: id, owner_id: owner });
    }
    return result;
  };
}
