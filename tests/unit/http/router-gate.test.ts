/**
 * `gatedRouter` skips routers a path cannot match (issue 29: the history page walked every route
 * of Studio). Whatever a request is, an app with gated routers must answer exactly as the same app
 * with the routers mounted plainly: case, trailing slashes, parameters, wildcards, HEAD, OPTIONS,
 * routers holding middleware or patterns, routes added after mounting.
 */
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatedRouter, routePrefixes } from '../../../server/http/router-gate.js';

/** Fresh routers (one set per app), each route answering with its own name. */
function routers(): express.Router[] {
  const answer = (name: string): express.RequestHandler => (req, res) => void res.json({ name, params: req.params, path: req.path });
  const jobs = express.Router();
  jobs.get('/api/admin/history', answer('history'));
  jobs.get('/api/admin/history/:promptId', answer('job'));
  jobs.post('/api/admin/history/delete', answer('delete'));
  const files = express.Router();
  files.get('/api/files/{*rest}', answer('files'));
  files.get('/api/folder/', answer('folder'));
  files.get(['/api/one', '/api/two/:n'], answer('either'));
  const guarded = express.Router();
  guarded.use((req, res, next) => (req.headers['x-block'] ? void res.status(403).json({ detail: 'blocked' }) : next()));
  guarded.get('/api/guarded', answer('guarded'));
  const pattern = express.Router();
  pattern.get(/^\/api\/re(\d+)$/, answer('regexp'));
  return [jobs, files, guarded, pattern];
}

const servers: http.Server[] = [];
let plain: string;
let gated: string;
/** A router of each app that gets its route only after the apps are built. */
const late: express.Router[] = [];

async function serve(app: express.Express): Promise<string> {
  const server = http.createServer(app);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const build = (mount: (r: express.Router) => express.RequestHandler) => {
    const app = express();
    late.push(express.Router());
    for (const r of [...routers(), late.at(-1)!]) app.use(mount(r));
    app.use((req, res) => void res.status(404).json({ detail: `none: ${req.method} ${req.path}` }));
    return serve(app);
  };
  plain = await build((r) => r);
  gated = await build(gatedRouter);
});
afterAll(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

async function answer(base: string, method: string, pathname: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + pathname, { method, headers });
  return { status: res.status, allow: res.headers.get('allow'), body: await res.text() };
}

describe('gatedRouter', () => {
  it('answers every request as the plainly mounted routers do', async () => {
    // Routes added to a router after it was mounted, and after it was first asked, are seen too.
    for (const base of [plain, gated]) expect((await answer(base, 'GET', '/api/late')).status).toBe(404);
    for (const r of late) r.get('/api/late', (_req, res) => void res.json({ name: 'late' }));
    const paths = [
      '/api/admin/history', '/API/Admin/HISTORY', '/api/admin/history/', '/api/admin/history?limit=5', '/api/admin/history/abc',
      '/api/admin/history/a%2Fb', '/api/admin/history/delete', '/api/admin/histor', '/api/admin/historyx', '/api/files/a/b.png',
      '/API/FILES/x', '/api/files', '/api/folder', '/api/folder/', '/API/FOLDER', '/api/one', '/api/two/3', '/api/two',
      '/api/guarded', '/api/re42', '/api/re', '/api/late', '/api/unknown', '/', '/%2e%2e/api/admin/history', '//api/admin/history',
    ];
    let compared = 0;
    for (const method of ['GET', 'HEAD', 'POST', 'OPTIONS']) {
      for (const p of paths) {
        for (const headers of [{}, { 'x-block': '1' }] as Array<Record<string, string>>) {
          expect(await answer(gated, method, p, headers), `${method} ${p} ${JSON.stringify(headers)}`).toEqual(await answer(plain, method, p, headers));
          compared++;
        }
      }
    }
    expect(compared).toBe(paths.length * 8);
    // The comparison covers routes reached, not only 404s.
    expect((await answer(gated, 'GET', '/API/Admin/HISTORY')).body).toContain('"history"');
    expect((await answer(gated, 'GET', '/api/folder')).body).toContain('"folder"');
    expect((await answer(gated, 'GET', '/api/late')).body).toContain('"late"');
  });
});

describe('routePrefixes', () => {
  it('takes each route up to its first parameter, wildcard or group, without trailing slashes (Express ignores them), in lower case', () => {
    const r = express.Router();
    r.get('/API/Admin/history/:id', () => {});
    r.get('/api/files/{*rest}', () => {});
    r.get('/api/folder/', () => {});
    r.get('/api/opt{/:x}', () => {});
    expect(routePrefixes(r.stack)).toEqual(['/api/admin/history', '/api/files', '/api/folder', '/api/opt']);
  });

  it('gives up (always enter) on middleware, patterns, the root and catch-alls', () => {
    const cases: Array<(r: express.Router) => void> = [
      (r) => r.use((_req, _res, next) => next()),
      (r) => r.get(/^\/x$/, () => {}),
      (r) => r.get('/', () => {}),
      (r) => r.get('/{*rest}', () => {}),
      (r) => r.get('/:id', () => {}),
    ];
    for (const add of cases) {
      const r = express.Router();
      r.get('/api/fine', () => {});
      add(r);
      expect(routePrefixes(r.stack)).toBeNull();
    }
  });
});
