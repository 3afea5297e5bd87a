/**
 * Headers every answer carries: no MIME sniffing, no referrer to other sites, and for pages a
 * Content-Security-Policy that allows only Studio's own scripts and no framing (clickjacking).
 * The server-rendered pages (login, maintenance) carry their inline script's hash instead.
 */
import type { RequestHandler } from 'express';
import { PAGE_SCRIPT_HASHES } from './pages.js';

/** The policy for pages; `scriptHashes` admit a page's own inline scripts. */
function pagePolicy(scriptHashes: readonly string[] = []): string {
  const scripts = ["'self'", ...scriptHashes.map((h) => `'${h}'`)].join(' ');
  return [
    "default-src 'self'",
    `script-src ${scripts}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

export function securityHeaders(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    // API answers are data, not pages; user files set their own sandboxing policy.
    if (!req.path.startsWith('/api/')) {
      res.setHeader('Content-Security-Policy', pagePolicy(PAGE_SCRIPT_HASHES));
      res.setHeader('X-Frame-Options', 'DENY');
    }
    next();
  };
}
