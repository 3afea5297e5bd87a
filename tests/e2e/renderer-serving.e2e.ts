/**
 * How the server serves the built renderer: long-lived caching for hashed assets, `no-cache`
 * index.html for every page route (history-API fallback), 404s for missing files and API paths,
 * and the server's own pages until a build exists.
 */
import express from 'express';
import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rendererRoutes } from '../../server/http/renderer.routes.js';

let dir: string;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-dist-'));
  const fallback = express.Router();
  fallback.get('/home', (_req, res) => res.type('html').send('server home page'));
  const app = express();
  app.use(rendererRoutes({ distDir: dir, fallback }));
  app.use((_req, res) => res.status(404).json({ detail: 'Not found' }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('renderer routes', () => {
  it('falls back to the server pages while the renderer is not built', async () => {
    const res = await fetch(`${base}/home`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('server home page');
    expect((await fetch(`${base}/static/app.js`)).status).toBe(404);
  });

  it('serves the build once it exists: immutable assets, no-cache pages, 404 for the rest', async () => {
    fs.mkdirSync(path.join(dir, 'static'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
    fs.writeFileSync(path.join(dir, 'static', 'index-abc123.js'), 'console.log(1)');

    const asset = await fetch(`${base}/static/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);

    for (const page of ['/', '/home', '/run/image-filter?job=x', '/jobs', '/deep/unknown/page']) {
      const res = await fetch(base + page);
      expect(res.status, page).toBe(200);
      expect(res.headers.get('cache-control'), page).toBe('no-cache');
      expect(await res.text(), page).toContain('<div id="app">');
    }

    expect((await fetch(`${base}/static/missing-123.js`)).status).toBe(404);
    expect((await fetch(`${base}/favicon.ico`)).status).toBe(404);
    for (const reserved of ['/api/nope', '/ws', '/login']) {
      const res = await fetch(base + reserved);
      expect(res.status, reserved).toBe(404);
      expect(await res.json(), reserved).toEqual({ detail: 'Not found' });
    }
  });
});
