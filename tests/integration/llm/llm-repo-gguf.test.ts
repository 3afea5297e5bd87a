/**
 * Any GGUF from the repository host: a fake host lists a gated repository's files (its tree API,
 * with LFS SHA-256s) only with the token; Studio shows the .gguf files with size, quantization and
 * fit, recommends the largest that fits, adds the chosen one to the LLM catalog, and it then
 * downloads like any catalog model: with the token, checked against the listed SHA-256.
 */
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoGgufView } from '../../../server/contracts/llm-repo.contract.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const TOKEN = 'hf_test_token';
const small = Buffer.alloc(3000, 1);
const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const TREE = [
  { type: 'file', oid: 'a1', size: 1519, path: '.gitattributes' },
  { type: 'file', oid: 'a2', size: 2000, path: 'README.md' },
  { type: 'file', oid: 'b1', size: 135, lfs: { oid: sha(small), size: small.length, pointerSize: 135 }, path: 'Tiny-Model-Q4_K_M.gguf' },
  { type: 'file', oid: 'b2', size: 135, lfs: { oid: 'c'.repeat(64), size: 2_500_000_000, pointerSize: 135 }, path: 'Tiny-Model-Q8_0.gguf' },
  { type: 'file', oid: 'b3', size: 135, lfs: { oid: 'd'.repeat(64), size: 90_000_000_000, pointerSize: 135 }, path: 'big/Tiny-Model-F16-00001-of-00002.gguf' },
  { type: 'file', oid: 'b4', size: 135, lfs: { oid: 'e'.repeat(64), size: 600_000_000, pointerSize: 135 }, path: 'mmproj-Tiny-Model-f16.gguf' },
  { type: 'directory', oid: 'b5', size: 0, path: 'big' },
];

let t: TestStudio;
let host: http.Server;
const seen: string[] = [];

beforeAll(async () => {
  host = http.createServer((req, res) => {
    seen.push(`${req.url} ${req.headers.authorization ?? '-'}`);
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'X-Error-Code': 'GatedRepo', 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify({ error: 'Access to model owner/tiny-model is restricted.' }));
    }
    if (req.url === '/api/models/owner/tiny-model/tree/main?recursive=true') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify(TREE));
    }
    if (req.url === '/api/models/owner/odd-names/tree/main?recursive=true') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify([{ type: 'file', oid: 'f1', size: 135, lfs: { oid: 'f'.repeat(64), size: 3000, pointerSize: 135 }, path: 'CON.gguf' }]));
    }
    if (req.url === '/owner/tiny-model/resolve/main/Tiny-Model-Q4_K_M.gguf') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': small.length });
      return void res.end(small);
    }
    res.writeHead(404).end();
  });
  host.listen(0, '127.0.0.1');
  await once(host, 'listening');
  const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  t = await startTestStudio({ env: { REPOHOST_BASE_URL: url, HUB_TOKEN: TOKEN, STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
});
afterAll(async () => {
  await t.stop();
  host.close();
});

describe('any GGUF from the repository host', () => {
  it('lists the .gguf files with size, quantization and fit, and recommends one', async () => {
    const res = await t.api('/api/admin/llm/repo-files?repo=owner/tiny-model');
    expect(res.status, await res.clone().text()).toBe(200);
    const view = (await res.json()) as RepoGgufView;
    expect(view.files.map((f) => [f.path, f.quantization, f.kind, f.size])).toEqual([
      ['Tiny-Model-Q4_K_M.gguf', 'Q4_K_M', 'model', 3000],
      ['mmproj-Tiny-Model-f16.gguf', 'F16', 'projector', 600_000_000],
      ['Tiny-Model-Q8_0.gguf', 'Q8_0', 'model', 2_500_000_000],
      ['big/Tiny-Model-F16-00001-of-00002.gguf', 'F16', 'split', 90_000_000_000],
    ]);
    // No GPU here: nothing fits fully, so the smallest is recommended, saying so.
    expect(view.files.every((f) => f.fit.fit === 'cpu')).toBe(true);
    expect(view.recommended).toBe('Tiny-Model-Q4_K_M.gguf');
    expect(view.reason).toMatch(/None fits fully on the GPU/);
    expect(seen.every((s) => s.endsWith(`Bearer ${TOKEN}`))).toBe(true);
    expect((await t.api('/api/admin/llm/repo-files?repo=not-a-repo')).status).toBe(400);
    expect((await t.api('/api/admin/llm/repo-files?repo=owner/missing')).status).toBe(404);
  });

  it('adds the chosen file to the LLM catalog; it downloads like any catalog model, checked', async () => {
    const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await t.api('/api/admin/llm/repo-files/add', json({ repo: 'owner/tiny-model', path: 'big/Tiny-Model-F16-00001-of-00002.gguf' }))).status).toBe(400);
    const added = await t.api('/api/admin/llm/repo-files/add', json({ repo: 'owner/tiny-model', path: 'Tiny-Model-Q4_K_M.gguf' }));
    expect(await added.json()).toEqual({ status: 'added', file: 'Tiny-Model-Q4_K_M.gguf' });
    expect(await (await t.api('/api/admin/llm/repo-files/add', json({ repo: 'owner/tiny-model', path: 'Tiny-Model-Q4_K_M.gguf' }))).json()).toEqual({ status: 'exists', file: 'Tiny-Model-Q4_K_M.gguf' });
    const catalog = (await (await t.api('/api/admin/llm/models')).json()) as { categories: Array<{ id: string; models: Array<Record<string, unknown>> }> };
    const entry = catalog.categories.find((c) => c.id === 'from_repositories')?.models[0];
    expect(entry).toMatchObject({ file: 'Tiny-Model-Q4_K_M.gguf', hosted_repo: 'owner/tiny-model', source: 'repohost', sha256: sha(small), tags: ['gguf', 'Q4_K_M'] });
    expect((await t.api('/api/admin/llm/models/download/Tiny-Model-Q4_K_M.gguf', { method: 'POST' })).status).toBe(200);
    const file = path.join(t.studio.config.paths.llmModels, 'Tiny-Model-Q4_K_M.gguf');
    for (let i = 0; i < 200 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
    expect(fs.readFileSync(file)).toEqual(small);
    const listed = (await (await t.api('/api/admin/llm/repo-files?repo=owner/tiny-model')).json()) as RepoGgufView;
    expect(listed.files.find((f) => f.file === 'Tiny-Model-Q4_K_M.gguf')?.in_catalog).toBe(true);
  }, 30_000);

  it('refuses with 400 a file whose name the catalog cannot hold, naming the rule; the catalog is unchanged', async () => {
    const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const before = await (await t.api('/api/admin/llm/models')).text();
    const res = await t.api('/api/admin/llm/repo-files/add', json({ repo: 'owner/odd-names', path: 'CON.gguf' }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/CON\.gguf.*not a usable name/);
    expect(await (await t.api('/api/admin/llm/models')).text()).toBe(before);
  });
});
