/**
 * Server-rendered pages: login, maintenance and not-found. They are self-contained (inline
 * style and script) because they must work when the renderer is not built or is being
 * replaced by an update.
 */
import crypto from 'node:crypto';

const STYLE = `
  :root { color-scheme: dark; --bg:#101318; --panel:#181c23; --text:#e6e9ef; --muted:#9aa3b2; --accent:#6ea8fe; --err:#ff7b7b; }
  * { box-sizing: border-box; }
  body { margin:0; min-height:100vh; display:grid; place-items:center; background:var(--bg); color:var(--text);
         font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { width:min(380px, 92vw); background:var(--panel); padding:28px; border-radius:12px; box-shadow:0 8px 30px #0006; }
  h1 { margin:0 0 4px; font-size:22px; } p { color:var(--muted); margin:0 0 18px; }
  label { display:block; margin-bottom:6px; }
  input { width:100%; padding:10px 12px; border-radius:8px; border:1px solid #2c3340; background:#0c0f14; color:var(--text); font-size:15px; }
  input:focus { outline:2px solid var(--accent); outline-offset:1px; }
  button { margin-top:14px; width:100%; padding:10px; border:0; border-radius:8px; background:var(--accent); color:#081120; font-weight:600; font-size:15px; cursor:pointer; }
  button:disabled { opacity:.6; cursor:progress; }
  .error { color:var(--err); min-height:1.5em; margin-top:10px; }
  .field { margin-bottom:12px; }
  .or { display:flex; align-items:center; gap:10px; color:var(--muted); margin:6px 0 12px; font-size:13px; }
  .or::before, .or::after { content:""; flex:1; border-top:1px solid #2c3340; }
`;

const LOGIN_SCRIPT = `
  const form = document.getElementById('login');
  const error = document.getElementById('error');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button');
    button.disabled = true; error.textContent = '';
    try {
      const next = new URLSearchParams(location.search).get('next') || undefined;
      // The API key when one is given (the owner); else the person's name and password.
      // (form.name would be the form's own name attribute: read the fields by id.)
      const key = document.getElementById('api_key').value;
      const name = document.getElementById('name').value;
      const password = document.getElementById('password').value;
      const body0 = key ? { api_key: key, next } : { name, password, next };
      if (!key && (!name || !password)) {
        error.textContent = 'Enter your name and password, or the API key';
        button.disabled = false; return;
      }
      const res = await fetch('/api/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body0), credentials: 'same-origin' });
      const body = await res.json().catch(() => ({}));
      if (res.ok) { location.assign(body.redirect || '/home'); return; }
      error.textContent = body.detail || ('Sign-in failed (' + res.status + ')');
    } catch (e) { error.textContent = 'Studio is not reachable: ' + e.message; }
    button.disabled = false;
  });
`;
const MAINTENANCE_SCRIPT = 'setTimeout(() => location.reload(), 3000);';

/** CSP hashes of the inline scripts above: pages admit exactly these and Studio's own files. */
export const PAGE_SCRIPT_HASHES: readonly string[] = [LOGIN_SCRIPT, MAINTENANCE_SCRIPT].map(
  (script) => `sha256-${crypto.createHash('sha256').update(script, 'utf8').digest('base64')}`,
);

function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${head}
<title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/**
 * The login form: a person's name and password, or the API key of this Studio (the owner); posts
 * JSON and follows the server's `redirect` (which honours `next`).
 */
export function loginPage(): string {
  return page(
    'Studio · Sign in',
    `<main>
  <h1>Studio</h1>
  <p>Sign in with your name and password, or with the API key of this Studio.</p>
  <form id="login">
    <div class="field"><label for="name">Name</label>
    <input id="name" name="name" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="64"></div>
    <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" maxlength="1024"></div>
    <div class="or">or</div>
    <label for="api_key">API key</label>
    <input id="api_key" name="api_key" type="password" autocomplete="off" autofocus>
    <button type="submit">Sign in</button>
    <div class="error" id="error" role="alert" aria-live="polite"></div>
  </form>
</main>
<script>${LOGIN_SCRIPT}</script>`,
  );
}

/** Shown on every page route while an update runs; reloads itself every 3 seconds. */
export function maintenancePage(): string {
  return page(
    'Studio · Updating',
    `<main><h1>Updating…</h1><p>System is updating, please wait... This page reloads by itself.</p></main>
<script>${MAINTENANCE_SCRIPT}</script>`,
    '<meta http-equiv="refresh" content="3">',
  );
}

/**
 * Every page while Studio runs in safe mode (its database is damaged): what is wrong and the
 * steps to restore. No reload: only a restart after the repair brings Studio back.
 */
export function safeModePage(what: string, steps: readonly string[]): string {
  return page(
    'Studio · Safe mode',
    `<main style="width:min(720px, 94vw)"><h1>Studio is in safe mode</h1><p role="alert">${escapeHtml(what)}</p>
<h2 style="font-size:17px">How to restore</h2><ol>${steps.map((step) => `<li style="margin-bottom:8px">${escapeHtml(step)}</li>`).join('')}</ol></main>`,
  );
}

/** A plain 404 page for unknown page routes. */
export function notFoundPage(path: string): string {
  return page('Studio · Not found', `<main><h1>Not found</h1><p>${escapeHtml(path)} does not exist.</p><p><a href="/home" style="color:var(--accent)">Go home</a></p></main>`);
}

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
