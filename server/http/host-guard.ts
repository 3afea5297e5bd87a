/**
 * DNS rebinding defence: a page on `attacker.example` whose name is rebound to this machine
 * reaches Studio with `Host: attacker.example`. Only names that really are this machine (or that
 * the owner listed) are served. A pure rule plus an Express middleware, used by Studio for every
 * request and WebSocket upgrade, and by the stand-in engine.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';

export interface HostRuleOptions {
  /** The address Studio binds to (a specific address is one of its own names). */
  bindHost?: string;
  /** STUDIO_ALLOWED_HOSTS: exact names, or `*.example.lan` for a domain's sub-names. */
  allowed?: readonly string[];
}

/** The host part of a Host header, lower case, without port or IPv6 brackets; null when malformed. */
function hostOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  const match = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value) ?? /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(value);
  return match ? match[1]!.replace(/\.$/, '') : null;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::ffff:127.0.0.1';
}

/** The addresses of this machine's interfaces, re-read at most every few seconds (DHCP, Wi-Fi). */
const interfaceCache = { at: 0, names: new Set<string>() };
function ownAddresses(): Set<string> {
  const now = Date.now();
  if (now - interfaceCache.at > 5_000) {
    const names = new Set<string>();
    for (const list of Object.values(os.networkInterfaces())) {
      for (const entry of list ?? []) names.add(entry.address.toLowerCase().replace(/%.*$/, ''));
    }
    const hostname = os.hostname().toLowerCase();
    names.add(hostname);
    // mDNS name of this machine (`box.local`), which a rebinding attacker cannot own.
    names.add(hostname.endsWith('.local') ? hostname : `${hostname}.local`);
    interfaceCache.names = names;
    interfaceCache.at = now;
  }
  return interfaceCache.names;
}

/** True when a request with this Host header is meant for this machine. */
export function isAllowedHost(header: string | undefined, options: HostRuleOptions = {}): boolean {
  const host = hostOf(header);
  if (!host) return false;
  if (isLoopback(host)) return true;
  const bind = options.bindHost?.toLowerCase();
  if (bind && bind !== '0.0.0.0' && bind !== '::' && host === bind) return true;
  for (const name of options.allowed ?? []) {
    if (name === host || (name.startsWith('*.') && host.endsWith(name.slice(1)))) return true;
  }
  return ownAddresses().has(host);
}

export const HOST_REFUSED = 'Refused: this Host name is not one of this Studio\'s (add it to STUDIO_ALLOWED_HOSTS if it is yours)';

/** Answer a refused request: JSON `{detail}` for API paths, plain text for pages. */
export function refuse(req: IncomingMessage, res: ServerResponse, status: number, detail: string): void {
  const api = (req.url ?? '').startsWith('/api');
  const body = api ? JSON.stringify({ detail }) : `${detail}\n`;
  res.writeHead(status, {
    'Content-Type': api ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}
