/**
 * Word when a job is done (issue 47): each person's own notification targets — an ntfy topic or a
 * signed webhook — the events each one wants, and the deliveries it got. Wire shapes of
 * `/api/notifications/…` for the server and the renderer.
 */
import { z } from 'zod';
import { NOTIFY_EVENTS, type NotifyEvent } from './notify-events.js';

export { BOX_EVENTS, NOTIFY_EVENTS, type NotifyEvent } from './notify-events.js';

export type NotifyKind = 'ntfy' | 'webhook';

const httpUrl = z
  .string({ error: 'required (string)' })
  .trim()
  .max(2000, 'at most 2000 characters')
  .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), 'must be an http:// or https:// URL');
const events = z.array(z.enum(NOTIFY_EVENTS, { error: `each one of ${NOTIFY_EVENTS.join(', ')}` })).min(1, 'choose at least one event');
const name = z.string().trim().min(1, 'must not be empty').max(80, 'at most 80 characters');
/** An ntfy access token (`tk_…`) for a protected topic; sent as a bearer token, never shown again. */
const token = z.string().trim().max(200, 'at most 200 characters').nullable();

export const newTargetBody = z
  .object({ kind: z.enum(['ntfy', 'webhook'], { error: 'one of ntfy, webhook' }), url: httpUrl, name: name.optional(), events, token: token.optional() })
  .strict();
export type NewTarget = z.infer<typeof newTargetBody>;

export const targetPatchBody = z.object({ url: httpUrl.optional(), name: name.optional(), events: events.optional(), token: token.optional(), enabled: z.boolean().optional() }).strict();
export type TargetPatch = z.infer<typeof targetPatchBody>;

export type DeliveryStatus = 'delivered' | 'retrying' | 'failed';

/** One message to one target: its attempts and what the receiver last said. */
export interface Delivery {
  id: string;
  event: NotifyEvent | 'test';
  title: string;
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's last HTTP status (null: no answer). */
  http_status: number | null;
  /** What happened, in words. */
  detail: string;
  at: string;
}

export interface NotifyTarget {
  id: string;
  kind: NotifyKind;
  name: string;
  url: string;
  events: NotifyEvent[];
  enabled: boolean;
  /** An ntfy token is set (its value is never sent back). */
  has_token: boolean;
  created_at: string;
  /** The latest deliveries, newest first. */
  deliveries: Delivery[];
}

/** `POST /api/notifications/targets`: a webhook's signing secret, shown this once. */
export interface NewTargetAnswer {
  target: NotifyTarget;
  secret: string | null;
}

/** `POST /api/notifications/targets/{id}/test`: the first attempt's outcome (retries go on in the background). */
export interface TestAnswer {
  delivery: Delivery;
}
