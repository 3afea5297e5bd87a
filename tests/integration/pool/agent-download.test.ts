/**
 * The main Studio asks an agent to download a catalog model its engine lacks: the Engines listing
 * offers the files the agent lacks that the main catalog has with a SHA-256; the agent downloads
 * through its own queue from its own catalog's source and verifies the bytes. A file whose bytes
 * do not match is refused and not kept (no file, no part); a file the two catalogs give different
 * hashes is refused before anything is downloaded; a ComfyUI that is not an agent, a file not in
 * the main catalog or without a hash cannot be asked for; the agent's route wants its key.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../server/contracts/catalog.contract.js';
import { catalogOf, repoEntry, sha256, writeCatalogs } from '../../helpers/fake-catalogs.js';
import { startFakeFileServer, type FakeFileServer } from '../../helpers/fake-file-server.js';
import { plantModels } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

const WAN = 'wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors';
const content = randomBytes(64 * 1024 + 7);
const elsewhere = sha256(Buffer.from('some other file'));

interface Engine {
  id: string;
  status: string;
  lacks: Array<{ workflow_id: string; missing: string[] }>;
  downloadable: string[];
}

let origin: FakeFileServer;
let main: TestStudio;
let agent: TestStudio;
let agentId: string;
const dirs: string[] = [];

const json = async <T>(res: Response) => (await res.json()) as T;
const post = (t: TestStudio, p: string, body: unknown) => t.api(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const ask = (filename: string, id = agentId) => post(main, `/api/admin/engines/${id}/models/download`, { filename });
const engines = async () => (await json<{ engines: Engine[] }>(await main.api('/api/admin/engines'))).engines;

/** A data folder with this models catalog written before boot. */
function dirWith(entries: CatalogEntry[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-agent-dl-'));
  dirs.push(dir);
  writeCatalogs(dir, { models: catalogOf(entries) });
  return dir;
}

beforeAll(async () => {
  origin = await startFakeFileServer({ content });
  const shared = [
    repoEntry(WAN, { dest: 'diffusion_models', sha256: sha256(content) }),
    // Both catalogs agree on its hash, but the host serves other bytes.
    repoEntry('tampered.safetensors', { sha256: elsewhere }),
  ];
  const agentDir = dirWith([...shared, repoEntry('disputed.safetensors', { sha256: elsewhere })]);
  const mainDir = dirWith([...shared, repoEntry('disputed.safetensors', { sha256: sha256(content) }), repoEntry('unhashed.safetensors')]);
  agent = await startTestStudio({ dir: agentDir, startEngine: true, env: { STUDIO_ROLE: 'agent', REPOHOST_BASE_URL: origin.url } });
  plantModels(agentDir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
  main = await startTestStudio({ dir: mainDir, startEngine: true, env: { ENGINE_POOL_PROBE_MS: '200', REPOHOST_BASE_URL: origin.url } });
  await Promise.all([agent.studio.engineReady(60_000), main.studio.engineReady(60_000)]);
  const added = await post(main, '/api/admin/engines', { name: 'GPU box', url: agent.url, key: agent.apiKey });
  agentId = (await json<{ id: string }>(added)).id;
  await until(async () => (await engines()).find((e) => e.id === agentId)?.status === 'online', 'the agent online', 60_000);
}, 120_000);

afterAll(async () => {
  await main?.stop();
  await agent?.stop();
  await origin?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("an agent downloading a model it lacks, at the main Studio's request", () => {
  it('is offered for the files the agent lacks that the main catalog has with a hash, and downloads one verified', async () => {
    const listed = (await engines()).find((e) => e.id === agentId)!;
    expect(listed.lacks.find((l) => l.workflow_id === 'img2vid-wan')?.missing).toContain(`model ${WAN}`);
    expect(listed.downloadable).toEqual([WAN]);
    expect((await engines()).find((e) => e.id === 'local')?.downloadable).toEqual([]);

    const res = await ask(WAN);
    expect(res.status).toBe(200);
    expect(await json<{ engine_id: string; status: string; file: string }>(res)).toEqual({ engine_id: agentId, status: 'queued', file: WAN });
    const file = path.join(agent.dir, 'models', 'diffusion_models', WAN);
    await until(() => fs.existsSync(file), 'the model on the agent', 30_000);
    expect(sha256(file)).toBe(sha256(content));
    const events = await json<Array<{ data: Record<string, unknown> }>>(await main.api('/api/admin/events?types=engine.model_download&limit=10'));
    expect(events.map((e) => e.data)).toContainEqual({ engine_id: agentId, file: WAN, status: 'queued' });
  }, 60_000);

  it('refuses bytes that do not match and keeps nothing of them', async () => {
    expect((await ask('tampered.safetensors')).status).toBe(200);
    await until(async () => {
      const body = await json<{ categories: Array<{ models: Array<{ file: string; status: string }> }> }>(await agent.api('/api/admin/models'));
      return body.categories.flatMap((c) => c.models).find((m) => m.file === 'tampered.safetensors')?.status === 'error';
    }, 'the tampered download failed on the agent', 30_000);
    const folder = path.join(agent.dir, 'models', 'checkpoints');
    expect(fs.readdirSync(folder).filter((f) => f.startsWith('tampered'))).toEqual([]);
  }, 60_000);

  it('refuses before downloading: catalogs that disagree, files not catalogued or without a hash, engines that are not agents, callers without the key', async () => {
    const disputed = await ask('disputed.safetensors');
    expect(disputed.status).toBe(409);
    expect((await json<{ detail: string }>(disputed)).detail).toMatch(/another SHA-256/);
    expect(fs.existsSync(path.join(agent.dir, 'models', 'checkpoints', 'disputed.safetensors'))).toBe(false);
    expect((await ask('unhashed.safetensors')).status).toBe(409);
    expect((await ask('nowhere.safetensors')).status).toBe(404);
    expect((await ask(WAN, 'local')).status).toBe(409);
    expect((await ask(WAN, 'e-nothing')).status).toBe(404);
    expect((await post(main, `/api/admin/engines/${agentId}/models/download`, {})).status).toBe(400);
    const direct = await fetch(`${agent.url}/api/agent/models/download`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ filename: WAN, sha256: sha256(content) }) });
    expect(direct.status).toBe(401);
    expect((await post(agent, '/api/agent/models/download', { filename: WAN, sha256: 'abc' })).status).toBe(400);
  });
});
