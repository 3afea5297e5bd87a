/**
 * The node map an import downloads for node types neither the engine nor the shipped map knows:
 * a real HTTP server serves the package manager's `extension-node-map.json` form; the import
 * names the package and its install URL, the download is cached (a fresh cache is not fetched
 * again), known types never trigger a download, and a failing source is a warning on the import
 * and a 500 naming the URL on a forced refresh.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { classicApi } from '../../fixtures/workflow-import/fixtures.js';

const FANCY = 'https://github.com/someone/ComfyUI-Fancy';
let t: TestStudio;
let server: http.Server;
let requests = 0;
let failWith: number | null = null;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests += 1;
    if (failWith !== null) {
      res.writeHead(failWith).end('no');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ [FANCY]: [['FancyNode', 'FancyOther'], { title_aux: 'Fancy' }], 'https://github.com/kijai/ComfyUI-KJNodes.git': [['ImageResizeKJ', 'KJExtra'], {}], 'not a url': [['Broken'], {}] }));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/extension-node-map.json`;
  t = await startTestStudio({ startEngine: true, env: { NODE_MAP_URL: url } });
  await t.studio.engineReady();
});

afterAll(async () => {
  await t?.stop();
  server?.close();
});

async function importGraph(extra: Record<string, { class_type: string; inputs: Record<string, unknown> }>, fileName: string) {
  const form = new FormData();
  form.append('file', new Blob([JSON.stringify({ ...classicApi(), ...extra })]), fileName);
  const res = await t.api('/api/admin/workflows/import', { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as { id: string; manifest: { required_nodes: string[]; node_sources?: Record<string, string> }; warnings: string[]; detail?: string } };
}

describe('the downloaded node map', () => {
  it('names the package of a node type only the download knows, caches the map, and does not fetch it again while fresh', async () => {
    const known = await importGraph({ '20': { class_type: 'ImageResizeKJ', inputs: { image: ['8', 0] } } }, 'known.json');
    expect(known.status).toBe(200);
    expect(requests).toBe(0);

    const fancy = await importGraph({ '20': { class_type: 'FancyNode', inputs: { image: ['8', 0] } } }, 'fancy.json');
    expect(fancy.status, JSON.stringify(fancy.body)).toBe(200);
    expect(fancy.body.manifest.required_nodes).toEqual(['ComfyUI-Fancy']);
    expect(fancy.body.manifest.node_sources).toEqual({ 'ComfyUI-Fancy': FANCY });
    expect(requests).toBe(1);
    const cached = JSON.parse(fs.readFileSync(path.join(t.dir, 'cache', 'node-map.json'), 'utf8')) as { nodes: Record<string, { package: string }> };
    expect(Object.keys(cached.nodes).sort()).toEqual(['FancyNode', 'FancyOther', 'ImageResizeKJ', 'KJExtra']);
    expect(cached.nodes.KJExtra!.package).toBe('ComfyUI-KJNodes');

    const list = (await (await t.api('/api/admin/workflows')).json()) as { workflows: { id: string; ready: boolean; nodes_status: { missing: string[] } }[] };
    expect(list.workflows.find((w) => w.id === fancy.body.id)).toMatchObject({ ready: false, nodes_status: { missing: ['ComfyUI-Fancy'] } });

    const nobody = await importGraph({ '20': { class_type: 'NobodyKnows', inputs: {} } }, 'nobody.json');
    expect(nobody.body.manifest.required_nodes).toEqual(['NobodyKnows']);
    expect(nobody.body.warnings.join('\n')).toMatch(/"NobodyKnows" is not in the engine and no known package provides it/);
    expect(requests).toBe(1);

    const status = (await (await t.api('/api/admin/workflows/import/node-map')).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ downloaded_types: 4, downloaded_packages: 2, error: null, fetched_at: expect.any(String) });
  });

  it('answers a forced refresh from a failing source with a 500 naming the URL, keeping the cached map', async () => {
    failWith = 503;
    const res = await t.api('/api/admin/workflows/import/node-map/refresh', { method: 'POST' });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/could not be downloaded from http:\/\/127\.0\.0\.1:\d+\/extension-node-map\.json: HTTP 503/);
    const status = (await (await t.api('/api/admin/workflows/import/node-map')).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ downloaded_types: 4, error: 'HTTP 503' });
    const fancy = await importGraph({ '20': { class_type: 'FancyOther', inputs: {} } }, 'fancy-again.json');
    expect(fancy.body.manifest.node_sources).toEqual({ 'ComfyUI-Fancy': FANCY });
  });
});
