/**
 * My notifications (issue 47): one's own ntfy topics and webhooks, `/api/notifications/targets`.
 */
import type { NewTargetAnswer, NotifyEvent, NotifyKind, NotifyTarget, TestAnswer } from '../../../server/contracts/notifications.contract.js';
import type { Http } from './http.js';

export { NOTIFY_EVENT_LABELS, NOTIFY_EVENTS } from '../../../server/contracts/notify-events.js';
export type { NotifyEvent, NotifyKind, NotifyTarget };

export interface TargetDraft {
  kind: NotifyKind;
  url: string;
  name?: string;
  events: NotifyEvent[];
  token?: string | null;
}

export class NotificationsApi {
  constructor(private readonly http: Http) {}

  list(): Promise<{ targets: NotifyTarget[] }> {
    return this.http.get('/api/notifications/targets');
  }
  add(draft: TargetDraft): Promise<NewTargetAnswer> {
    return this.http.post('/api/notifications/targets', draft);
  }
  change(id: string, patch: Partial<Omit<TargetDraft, 'kind'>> & { enabled?: boolean }): Promise<NotifyTarget> {
    return this.http.patch(`/api/notifications/targets/${encodeURIComponent(id)}`, patch);
  }
  remove(id: string): Promise<{ ok: true }> {
    return this.http.delete(`/api/notifications/targets/${encodeURIComponent(id)}`);
  }
  test(id: string): Promise<TestAnswer> {
    return this.http.post(`/api/notifications/targets/${encodeURIComponent(id)}/test`);
  }
}
