/**
 * Page routes until the Vue renderer is built and served (issue "web UI"): `/` goes home, and
 * `/home` is a small status page with a sign-out button.
 */
import express from 'express';
import { escapeHtml } from './pages.js';

export interface HomeDeps {
  version: string;
  engineStatus: () => string;
}

/** `/` and `/home`. */
export function homeRoutes({ version, engineStatus }: HomeDeps): express.Router {
  const router = express.Router();
  router.get('/', (_req, res) => res.redirect(302, '/home'));
  router.get('/home', (_req, res) => {
    res.type('html').set('Cache-Control', 'no-store').send(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Studio</title>
<style>body{margin:0;min-height:100vh;display:grid;place-items:center;background:#101318;color:#e6e9ef;font:15px/1.5 system-ui,sans-serif}
main{background:#181c23;padding:28px;border-radius:12px;width:min(440px,92vw)}button{padding:8px 14px;border:0;border-radius:8px;background:#6ea8fe;font-weight:600;cursor:pointer}
code{color:#9ad}</style></head><body><main><h1>Studio ${escapeHtml(version)}</h1>
<p>The server is running. Engine: <strong id="engine">${escapeHtml(engineStatus())}</strong>.</p>
<p>Event log: <a style="color:#6ea8fe" href="/api/admin/events">/api/admin/events</a></p>
<form method="post" action="/api/auth/logout"><button type="submit">Sign out</button></form></main>
<script>
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
  ws.onmessage = (m) => { try { const msg = JSON.parse(m.data);
    if (msg.type === 'engine.state') document.getElementById('engine').textContent = msg.data.status;
    if (msg.type === 'hello') document.getElementById('engine').textContent = msg.data.engine.status; } catch {} };
</script></body></html>`);
  });
  return router;
}
