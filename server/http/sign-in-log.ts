/**
 * Which devices signed in with the API key (the last few, by address; this machine counts as one
 * device whatever address it used), so the first-run guide can see that a phone on the LAN has
 * signed in. Kept in the settings table; written by the login route only.
 */
import type { IncomingMessage } from 'node:http';
import type { SettingsStore } from '../db/settings.store.js';
import { clientAddress, isLoopbackHost } from './authenticator.js';

const KEY = 'auth.sign_in_devices';
const KEPT = 20;
/** The device name of every connection from this machine (loopback, or its own LAN address). */
export const THIS_MACHINE = 'this machine';

/** The device a request comes from: `this machine`, or the client's address. */
export function deviceOf(req: IncomingMessage): string {
  const remote = clientAddress(req);
  const local = (req.socket.localAddress ?? '').replace(/^::ffff:/, '');
  return isLoopbackHost(remote) || remote === local ? THIS_MACHINE : remote;
}

export class SignInLog {
  constructor(private readonly settings: SettingsStore) {}

  /** Remember that `device` signed in (most recent first). */
  record(device: string): void {
    const list = [device, ...this.devices().filter((d) => d !== device)].slice(0, KEPT);
    this.settings.set(KEY, JSON.stringify(list));
  }

  /** The devices that signed in, most recent first. */
  devices(): string[] {
    try {
      const parsed: unknown = JSON.parse(this.settings.get(KEY) ?? '[]');
      return Array.isArray(parsed) ? parsed.filter((d): d is string => typeof d === 'string') : [];
    } catch {
      return [];
    }
  }

  /** A device other than `device` has signed in. */
  signedInElsewhere(device: string): boolean {
    return this.devices().some((d) => d !== device);
  }
}
