/**
 * The addresses a phone on the same network can open Studio at: the machine's own non-internal
 * interface addresses when Studio listens on every interface, the one address it bound
 * otherwise, none when it listens on loopback only (and why, in words).
 */
import os from 'node:os';
import { MIN_LAN_KEY_LENGTH } from '../config.js';

export interface LanAnswer {
  urls: string[];
  reason: string | null;
}

export interface LanInputs {
  host: string;
  port: number;
  tls: boolean;
  loopbackReason: 'default-key' | 'short-key' | null;
  interfaces?: NodeJS.Dict<os.NetworkInterfaceInfo[]>;
}

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host);
// Private IPv4 ranges first: a phone on home Wi-Fi reaches those; link-local (169.254) last.
const rank = (address: string) => (/^(192\.168|10\.|172\.(1[6-9]|2\d|3[01])\.)/.test(address) ? 0 : /^169\.254\./.test(address) ? 2 : 1);

export function lanUrls({ host, port, tls, loopbackReason, interfaces = os.networkInterfaces() }: LanInputs): LanAnswer {
  const scheme = tls ? 'https' : 'http';
  const url = (address: string) => `${scheme}://${address.includes(':') ? `[${address}]` : address}:${port}`;
  if (isLoopback(host)) {
    const reason =
      loopbackReason === 'default-key'
        ? 'Studio listens on this computer only because it uses the built-in API key: set API_KEY to a random secret'
        : loopbackReason === 'short-key'
          ? `Studio listens on this computer only because API_KEY is shorter than ${MIN_LAN_KEY_LENGTH} characters`
          : `Studio listens on this computer only (STUDIO_HOST=${host})`;
    return { urls: [], reason: `${reason}, then restart it to reach it from a phone.` };
  }
  if (host !== '0.0.0.0' && host !== '::') return { urls: [url(host)], reason: null };
  const addresses: string[] = [];
  for (const list of Object.values(interfaces)) {
    for (const entry of list ?? []) {
      // IPv4 only: phones' browsers and cameras handle bracketed IPv6 addresses poorly.
      if (!entry.internal && entry.family === 'IPv4') addresses.push(entry.address);
    }
  }
  addresses.sort((a, b) => rank(a) - rank(b));
  return addresses.length ? { urls: [...new Set(addresses)].map(url), reason: null } : { urls: [], reason: 'This computer has no network address right now (no Wi-Fi or cable).' };
}
