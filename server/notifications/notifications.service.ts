/**
 * Word when a job is done (issue 47): each person keeps their own targets; Studio's event bus says
 * what happened, and each event goes to the targets that asked for it and may know of it — a job's
 * or a batch's to its owner's targets only; a download's or low disk space to the owner's and
 * admins' (they concern the whole box). Delivery runs beside the event, never in its way.
 */
import crypto from 'node:crypto';
import { DomainError } from '../domain-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { Actor } from '../http/actor.js';
import type { Logger } from '../logging.js';
import type { StudioEvent } from '../contracts/events.contract.js';
import type { Role } from '../contracts/users.contract.js';
import { BOX_EVENTS, NOTIFY_EVENTS, type NewTarget, type NewTargetAnswer, type NotifyEvent, type NotifyTarget, type TargetPatch, type TestAnswer } from '../contracts/notifications.contract.js';
import { deliver } from './notify-delivery.js';
import { messageFor, testMessage, type MessageSources, type NotifyMessage } from './notify-message.js';
import type { NotifyStore, TargetRow } from './notify.store.js';

/** Targets a person may keep: enough for a phone, a chat tool and a home automation box, and then some. */
const MAX_TARGETS = 20;

export interface NotificationsDeps extends MessageSources {
  store: NotifyStore;
  events: EventBus;
  logger: Logger;
  /** A person's role; null when they are unknown or disabled (their targets then get nothing). */
  roleOf: (userId: string) => Role | null;
  fetchImpl?: typeof fetch;
  sleep: (ms: number) => Promise<void>;
  now?: () => number;
}

const isNotifyEvent = (e: StudioEvent): e is StudioEvent & { type: NotifyEvent } => (NOTIFY_EVENTS as readonly string[]).includes(e.type);

export class NotificationsService {
  private off: (() => void) | null = null;
  private stopped = false;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly now: () => number;

  constructor(private readonly deps: NotificationsDeps) {
    this.now = deps.now ?? Date.now;
  }

  start(): void {
    this.off = this.deps.events.subscribe((event) => {
      if (isNotifyEvent(event)) this.track(this.dispatch(event));
    });
  }

  /** No new deliveries, no further retries; resolves when the attempts under way have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.off?.();
    this.off = null;
    await Promise.allSettled([...this.pending]);
  }

  list(actor: Actor): NotifyTarget[] {
    return this.deps.store.ofOwner(actor.userId).map((t) => this.deps.store.toWire(t));
  }

  add(actor: Actor, body: NewTarget): NewTargetAnswer {
    if (this.deps.store.ofOwner(actor.userId).length >= MAX_TARGETS) throw new DomainError('conflict', `You have ${MAX_TARGETS} notification targets already: delete one first`);
    const secret = body.kind === 'webhook' ? `whsec_${crypto.randomBytes(24).toString('base64url')}` : null;
    const row: TargetRow = {
      id: crypto.randomUUID(),
      owner_id: actor.userId,
      kind: body.kind,
      name: body.name ?? (body.kind === 'ntfy' ? `ntfy ${new URL(body.url).pathname.slice(1) || new URL(body.url).host}` : `Webhook ${new URL(body.url).host}`),
      url: body.url,
      events: [...new Set(body.events)],
      secret,
      token: body.kind === 'ntfy' ? (body.token ?? null) : null,
      enabled: true,
      created_ms: this.now(),
    };
    this.deps.store.insert(row);
    return { target: this.deps.store.toWire(row), secret };
  }

  change(actor: Actor, id: string, patch: TargetPatch): NotifyTarget {
    const row = this.own(actor, id);
    const next: TargetRow = {
      ...row,
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.events !== undefined ? { events: [...new Set(patch.events)] } : {}),
      ...(patch.token !== undefined && row.kind === 'ntfy' ? { token: patch.token } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    };
    this.deps.store.update(next);
    return this.deps.store.toWire(next);
  }

  remove(actor: Actor, id: string): void {
    this.own(actor, id);
    this.deps.store.delete(id);
  }

  /** The Test button: a sample message now; answers with the first attempt (retries go on behind it). */
  async test(actor: Actor, id: string): Promise<TestAnswer> {
    const row = this.own(actor, id);
    const { first, done } = this.send(row, testMessage(this.deps.baseUrl(), row.name));
    this.track(done);
    const delivery = await first;
    return { delivery: { ...delivery, at: this.deps.store.deliveries(row.id).find((d) => d.id === delivery.id)?.at ?? '' } };
  }

  /** A person's own target; anyone else's answers as a missing one. */
  private own(actor: Actor, id: string): TargetRow {
    const row = this.deps.store.get(id);
    if (!row || row.owner_id !== actor.userId) throw new DomainError('not_found', `Notification target not found: ${id}`);
    return row;
  }

  private mayReceive(target: TargetRow, event: StudioEvent & { type: NotifyEvent }): boolean {
    const role = this.deps.roleOf(target.owner_id);
    if (role === null) return false;
    if (BOX_EVENTS.includes(event.type)) return role === 'owner' || role === 'admin';
    return event.data.user_id === target.owner_id;
  }

  private async dispatch(event: StudioEvent & { type: NotifyEvent }): Promise<void> {
    const targets = this.deps.store.wanting(event.type).filter((t) => this.mayReceive(t, event));
    if (targets.length === 0 || this.stopped) return;
    const message = await messageFor(event, this.deps);
    await Promise.all(targets.map((t) => this.send(t, message).done));
  }

  private send(target: TargetRow, message: NotifyMessage) {
    const run = deliver(target, message, {
      fetchImpl: this.deps.fetchImpl,
      sleep: this.deps.sleep,
      stopped: () => this.stopped,
      now: this.now,
      save: (d) => this.deps.store.saveDelivery(target.id, d, this.now()),
    });
    void run.done.then((d) => {
      if (d.status === 'failed') this.deps.events.emit('notify.failed', 'warning', `A notification to "${target.name}" was not delivered: ${d.detail}`, { target_id: target.id, user_id: target.owner_id, event: message.event });
    });
    return run;
  }

  private track(work: Promise<unknown>): void {
    const p = work.catch((err: unknown) => this.deps.logger.error('a notification could not be sent', err)).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }
}
