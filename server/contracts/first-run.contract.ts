/**
 * The first-run guide's wire (`/api/admin/system/first-run`): whether the home page shows it, the
 * steps the user ticked by hand, the addresses a phone on the LAN can open, and whether another
 * device has signed in. The other steps (engine, starter model, first job) are read by the page
 * from their own routes.
 */
import { z } from 'zod';

/** `auto`: shown until every step is done; `open`: shown (reopened from System); `dismissed`: hidden. */
const DISPLAYS = ['auto', 'open', 'dismissed'] as const;
/** Steps Studio cannot always see for itself, so the user may tick them. */
const TICKABLE = ['phone'] as const;

export type FirstRunDisplay = (typeof DISPLAYS)[number];
export type FirstRunTickable = (typeof TICKABLE)[number];

export interface FirstRunReport {
  display: FirstRunDisplay;
  ticked: FirstRunTickable[];
  lan: {
    /** URLs a browser elsewhere on the network can open (`http://192.168.1.20:8188`), best first. */
    urls: string[];
    /** Why there are none (Studio listens on this computer only, no network), or null. */
    reason: string | null;
  };
  /** A device other than the one asking has signed in with the API key. */
  other_device_signed_in: boolean;
}

export const firstRunBody = z
  .object({
    display: z.enum(DISPLAYS).optional(),
    ticked: z.array(z.enum(TICKABLE)).max(8).optional(),
  })
  .strict();
export type FirstRunBody = z.infer<typeof firstRunBody>;
