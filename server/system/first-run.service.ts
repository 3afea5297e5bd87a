/**
 * The first-run guide's stored state (shown or dismissed, steps ticked by hand) and what the
 * server alone knows for it: the LAN addresses and whether another device signed in.
 */
import type { FirstRunBody, FirstRunDisplay, FirstRunReport, FirstRunTickable } from '../contracts/first-run.contract.js';
import type { SettingsStore } from '../db/settings.store.js';
import type { LanAnswer } from './lan-addresses.js';

const KEY = 'first_run.guide';

interface Stored {
  display: FirstRunDisplay;
  ticked: FirstRunTickable[];
}

export interface FirstRunDeps {
  settings: SettingsStore;
  lan: () => LanAnswer;
  signedInElsewhere: (device: string) => boolean;
}

export class FirstRunService {
  constructor(private readonly deps: FirstRunDeps) {}

  /** The guide as the device `device` sees it. */
  report(device: string): FirstRunReport {
    const stored = this.stored();
    return { ...stored, lan: this.deps.lan(), other_device_signed_in: this.deps.signedInElsewhere(device) };
  }

  /** Show, dismiss, or tick steps; answers the new report. */
  update(body: FirstRunBody, device: string): FirstRunReport {
    const stored = this.stored();
    const next: Stored = { display: body.display ?? stored.display, ticked: body.ticked ? [...new Set(body.ticked)] : stored.ticked };
    this.deps.settings.set(KEY, JSON.stringify(next));
    return this.report(device);
  }

  private stored(): Stored {
    try {
      const value = JSON.parse(this.deps.settings.get(KEY) ?? 'null') as Partial<Stored> | null;
      const display = value?.display === 'open' || value?.display === 'dismissed' ? value.display : 'auto';
      const ticked = Array.isArray(value?.ticked) ? value.ticked.filter((t): t is FirstRunTickable => t === 'phone') : [];
      return { display, ticked };
    } catch {
      return { display: 'auto', ticked: [] };
    }
  }
}
