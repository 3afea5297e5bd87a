/**
 * `GET /api/admin/nodes/search`: packages of the node maps by name or node type, with the URL the
 * install takes. The shipped map and a cached community map (written where Studio keeps it, as a
 * download would) are both searched; nothing is downloaded (NODE_MAP_URL points nowhere).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeSearchHit } from '../../../server/contracts/nodes.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const MAP_URL = 'http://127.0.0.1:9/extension-node-map.json';
let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ env: { NODE_MAP_URL: MAP_URL } });
  const cache = path.join(t.dir, 'cache', 'node-map.json');
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  const nodes = {
    UltimateSDUpscale: { package: 'ComfyUI_UltimateSDUpscale', url: 'https://github.com/ssitu/ComfyUI_UltimateSDUpscale' },
    UltimateSDUpscaleNoUpscale: { package: 'ComfyUI_UltimateSDUpscale', url: 'https://github.com/ssitu/ComfyUI_UltimateSDUpscale' },
  };
  fs.writeFileSync(cache, JSON.stringify({ source: MAP_URL, fetched_at: new Date().toISOString(), nodes }));
});

afterAll(async () => {
  await t?.stop();
});

const search = async (q: string): Promise<{ status: number; body: { results?: NodeSearchHit[]; detail?: string } }> => {
  const res = await t.api(`/api/admin/nodes/search?q=${encodeURIComponent(q)}`);
  return { status: res.status, body: (await res.json()) as { results?: NodeSearchHit[]; detail?: string } };
};

describe('node package search', () => {
  it('finds a package by its name, with its install URL', async () => {
    const { status, body } = await search('kjnodes');
    expect(status).toBe(200);
    expect(body.results![0]).toMatchObject({ name: 'ComfyUI-KJNodes', url: 'https://github.com/kijai/ComfyUI-KJNodes' });
  });

  it('finds a package by a node type it adds, that type shown first', async () => {
    const { body } = await search('ColorMatch');
    expect(body.results!.map((r) => r.name)).toEqual(['ComfyUI-KJNodes']);
    expect(body.results![0]!.node_types[0]).toBe('ColorMatch');
  });

  it('searches the cached community map too', async () => {
    const { body } = await search('ultimate upscale');
    expect(body.results).toEqual([
      { name: 'ComfyUI_UltimateSDUpscale', url: 'https://github.com/ssitu/ComfyUI_UltimateSDUpscale', node_types: ['UltimateSDUpscale', 'UltimateSDUpscaleNoUpscale'], total_types: 2 },
    ]);
  });

  it('answers 400 with a detail for a query too short, and nothing for words no package has', async () => {
    const short = await search('a');
    expect(short.status).toBe(400);
    expect(short.body.detail).toMatch(/at least 2 characters/);
    expect((await search('zzz-no-such-thing')).body.results).toEqual([]);
  });
});
