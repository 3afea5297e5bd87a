/**
 * Signs the desktop window in without asking the local user for the key: main logs in through
 * the server's own `POST /api/auth/login` and copies the session cookie it gets into the
 * window's session (same cookie, same signature, same expiry rules as a browser login).
 */
import type { CookiesSetDetails } from 'electron';

/** Log in and turn the response's `Set-Cookie` into Electron cookie details for `url`. */
export async function loginCookie(url: string, apiKey: string, fetchImpl: typeof fetch = fetch): Promise<CookiesSetDetails> {
  const res = await fetchImpl(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (res.status !== 200) throw new Error(`desktop sign-in failed: HTTP ${res.status}`);
  const header = res.headers.getSetCookie().find((c) => c.startsWith('session='));
  if (!header) throw new Error('desktop sign-in failed: no session cookie');
  return parseSetCookie(url, header);
}

/** `session=v; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=86400` → CookiesSetDetails. */
export function parseSetCookie(url: string, header: string, now = Date.now()): CookiesSetDetails {
  const [pair, ...attrs] = header.split(';').map((part) => part.trim());
  const eq = pair!.indexOf('=');
  const details: CookiesSetDetails = { url, name: pair!.slice(0, eq), value: pair!.slice(eq + 1), path: '/', httpOnly: false, secure: false };
  for (const attr of attrs) {
    const [key, value] = attr.split('=') as [string, string | undefined];
    switch (key.toLowerCase()) {
      case 'httponly':
        details.httpOnly = true;
        break;
      case 'secure':
        details.secure = true;
        break;
      case 'samesite':
        details.sameSite = value?.toLowerCase() === 'strict' ? 'strict' : value?.toLowerCase() === 'none' ? 'no_restriction' : 'lax';
        break;
      case 'path':
        details.path = value ?? '/';
        break;
      case 'max-age':
        details.expirationDate = Math.floor(now / 1000) + Number(value ?? 0);
        break;
    }
  }
  return details;
}
