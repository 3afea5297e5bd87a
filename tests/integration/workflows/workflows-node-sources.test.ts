/**
 * The attack of a shared workflow ZIP whose `manifest.yaml` maps a well-known node package name to
 * a repository of the attacker's: the import, the workflow list and the install route must not
 * offer or fetch that URL under the familiar name. A name the curated map (shipped) or the
 * community map (downloaded from a local server here) knows installs only from the map's URL; the
 * file's URL is shown with its host and owner, marked, and the install route refuses it (409,
 * naming the map's URL) unless the user confirmed; a URL for a name no map knows is marked as the
 * file's, to be asked about.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { classicApi, zipOf } from '../../fixtures/workflow-import/fixtures.js';

const IMPACT = 'https://github.com/ltdrdata/ComfyUI-Impact-Pack';
const FANCY = 'https://github.com/someone/ComfyUI-Fancy';
const EVIL_IMPACT = 'https://evil.example/attacker/ComfyUI-Impact-Pack';
const EVIL_FANCY = 'https://github.com/attacker/comfyui-fancy.git';
const UNKNOWN = 'https://git.example.org/maker/ComfyUI-Unheard';
let t: TestStudio;
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ [FANCY]: [['FancyNode'], { title_aux: 'Fancy' }] }));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/extension-node-map.json`;
  t = await startTestStudio({ startEngine: true, env: { NODE_MAP_URL: url } });
  await t.studio.engineReady();
  const refreshed = await t.api('/api/admin/workflows/import/node-map/refresh', { method: 'POST' });
  expect(refreshed.status).toBe(200);
});

afterAll(async () => {
  await t?.stop();
  server?.close();
});

describe('install URLs from a shared workflow file', () => {
  it('offers the node map URL for a known name, marks the file URL, and refuses to fetch it unconfirmed', async () => {
    const manifest = {
      id: 'shared-flow', name: 'Shared flow', type: 'static', version: 1, date: '2026-11-28 12:00', inputs: [], outputs: [{ type: 'image' }],
      required_nodes: ['ComfyUI-Impact-Pack', 'ComfyUI-Fancy', 'ComfyUI-Unheard'],
      node_sources: { 'ComfyUI-Impact-Pack': EVIL_IMPACT, 'ComfyUI-Fancy': EVIL_FANCY, 'ComfyUI-Unheard': UNKNOWN },
    };
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(zipOf({ 'manifest.yaml': toYaml(manifest), 'workflow.json': JSON.stringify(classicApi()) }))]), 'shared.zip');
    const imported = await t.api('/api/admin/workflows/import', { method: 'POST', body: form });
    const body = (await imported.json()) as { node_source_checks: Record<string, Record<string, unknown>> };
    expect(imported.status, JSON.stringify(body)).toBe(200);
    const expected = {
      'ComfyUI-Impact-Pack': { url: IMPACT, host: 'github.com', owner: 'ltdrdata', from: 'node_map', confirm: false, file_url: EVIL_IMPACT, file_differs: true },
      'ComfyUI-Fancy': { url: FANCY, host: 'github.com', owner: 'someone', from: 'node_map', confirm: false, file_url: EVIL_FANCY, file_differs: true },
      'ComfyUI-Unheard': { url: UNKNOWN, host: 'git.example.org', owner: 'maker', from: 'file', confirm: true },
    };
    expect(body.node_source_checks).toEqual(expected);

    const list = (await (await t.api('/api/admin/workflows')).json()) as { workflows: { id: string; node_source_checks?: unknown }[] };
    expect(list.workflows.find((w) => w.id === 'shared-flow')!.node_source_checks).toEqual(expected);

    for (const [url, known] of [[EVIL_IMPACT, IMPACT], [EVIL_FANCY, FANCY]]) {
      const res = await t.api('/api/admin/nodes/install', { method: 'POST', body: JSON.stringify({ url, dry_run: true }), headers: { 'Content-Type': 'application/json' } });
      const refused = (await res.json()) as { detail: string; source_check: Record<string, string> };
      expect(res.status, JSON.stringify(refused)).toBe(409);
      expect(refused.detail).toContain(known);
      expect(refused.detail).toMatch(/confirm/);
      expect(refused.source_check).toMatchObject({ url, known_url: known });
    }
  });
});
