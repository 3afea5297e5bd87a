/**
 * Signs the desktop window in without asking the local user for the key and without the public
 * login route: the session is minted in-process by the Studio this process runs, so a local
 * flood of wrong keys (which throttles the login route) cannot lock the owner out of the window.
 */
import type { CookiesSetDetails } from 'electron';
import { SESSION_COOKIE, SESSION_MAX_AGE_S } from '../server/http/session.js';

/** Electron cookie details for a session value minted in-process, for the window's `url`. */
export function sessionCookieDetails(url: string, value: string, now = Date.now()): CookiesSetDetails {
  const secure = new URL(url).protocol === 'https:' || /^(127\.|localhost$|\[::1\]$)/.test(new URL(url).hostname);
  return {
    url,
    name: SESSION_COOKIE,
    value,
    path: '/',
    httpOnly: true,
    secure,
    sameSite: 'strict',
    expirationDate: Math.floor(now / 1000) + SESSION_MAX_AGE_S,
  };
}
