/**
 * Runtime install against a fake release source that answers like GitHub's release API and serves
 * archives holding the real llama-server the suite builds (scripts/build-llama-server.mjs): a
 * wrong digest is refused with nothing kept, entries escaping the folder are refused, a "Vulkan"
 * build that can only use the CPU is refused as a GPU build with the line that shows it, the
 * recommended build installs, passes its smoke test, becomes active and runs a real chat; a newer
 * release shows as an update, installs, and switch and rollback move between the two.
 *
 * Order matters (one Studio and one release source for the file): the install test expects the
 * release source as beforeAll made it (b9000), and the update test starts from the build the
 * install test made active; the update test publishes b9001, so it stays last.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { writeTinyGguf } from '../../../server/llm/runtimes/tiny-gguf.js';
import type { RuntimesView } from '../../../server/contracts/llm-runtimes.contract.js';
import { handTarGz, releaseTarGz, startFakeReleaseSource, type FakeReleaseSource } from '../../helpers/fake-llama-releases.js';
import { freePort } from '../../helpers/ports.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';

const found = spawnSync(process.execPath, [path.join(APP_ROOT, 'scripts', 'build-llama-server.mjs'), '--cached'], { encoding: 'utf8' });
const binary = found.status === 0 ? found.stdout.trim().split('\n').pop()! : null;

let t: TestStudio;
let source: FakeReleaseSource;
let good: Buffer;
const json = (body: unknown) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

async function view(refresh = false): Promise<RuntimesView> {
  return (await (await t.api(`/api/admin/llm/runtimes${refresh ? '?refresh=1' : ''}`)).json()) as RuntimesView;
}

/** Install and wait until the job has finished (installed or failed). */
async function install(asset?: string): Promise<NonNullable<RuntimesView['job']>> {
  const res = await t.api('/api/admin/llm/runtimes/install', json(asset ? { asset } : {}));
  expect(res.status, await res.clone().text()).toBe(202);
  for (;;) {
    const { job } = await view();
    if (job && (job.phase === 'installed' || job.phase === 'failed')) return job;
    await new Promise((r) => setTimeout(r, 200));
  }
}

function runtimesFolder(): string[] {
  const dir = path.join(t.studio.config.paths.llm, 'runtimes');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n !== 'runtimes.json' && n !== 'smoke' && n !== 'downloads') : [];
}

describe('llama.cpp runtimes from a release source', () => {
  beforeAll(async () => {
    if (!binary) return;
    good = releaseTarGz(path.dirname(binary), 'b9000');
    source = await startFakeReleaseSource([
      {
        tag: 'b9000',
        assets: [
          { name: 'llama-b9000-bin-ubuntu-x64.tar.gz', content: good },
          { name: 'llama-b9000-bin-ubuntu-vulkan-x64.tar.gz', content: good },
          { name: 'llama-b9000-bin-ubuntu-rocm-7.2-x64.tar.gz', content: good, digest: `sha256:${'0'.repeat(64)}` },
          { name: 'llama-b9000-bin-ubuntu-arm64.tar.gz', content: handTarGz([{ name: 'llama-b9000/llama-server', content: Buffer.from('#!/bin/sh\n') }, { name: 'llama-b9000/../../../escaped.txt', content: Buffer.from('out') }]) },
          { name: 'llama-b9000-bin-win-cuda-12.4-x64.zip', content: Buffer.from('not for this machine') },
          { name: 'llama-b9000-ui.tar.gz', content: Buffer.from('ui') },
        ],
      },
    ]);
    // No GPU tool answers, so the recommendation is the CPU build on any machine.
    t = await startTestStudio({ env: { LLM_RELEASES_URL: source.url, LLM_PORT: String(await freePort()), STUDIO_NVIDIA_SMI: '/nonexistent/nvidia-smi' } });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await source?.close();
  });

  it('lists the builds of the newest release with the recommended variant and why', async () => {
    if (!binary) expect.fail(found.stderr.trim() || 'llama-server is not built (node scripts/build-llama-server.mjs builds it)');
    const v = await view();
    expect(v.override).toBeNull();
    expect(v.installed).toEqual([]);
    expect(v.available?.tag).toBe('b9000');
    expect(v.available?.builds.map((b) => b.variant).sort()).toEqual(['cpu', 'cpu', 'cuda-12.4', 'rocm-7.2', 'vulkan']);
    expect(v.available?.recommended).toEqual({ asset: 'llama-b9000-bin-ubuntu-x64.tar.gz', variant: 'cpu' });
    expect(v.available?.reason).toMatch(/No GPU was found/);
    expect(v.update_available).toBe(true);
    expect(source.requests.filter((r) => r.startsWith('GET /repos/'))).toHaveLength(1);
  });

  it('refuses an archive whose digest differs from the published one, keeping nothing', async () => {
    const job = await install('llama-b9000-bin-ubuntu-rocm-7.2-x64.tar.gz');
    expect(job.phase).toBe('failed');
    expect(job.error).toMatch(/SHA-256|hash|digest/i);
    expect(runtimesFolder()).toEqual([]);
    expect(fs.readdirSync(path.join(t.studio.config.paths.llm, 'runtimes', 'downloads'))).toEqual([]);
    expect((await view()).installed).toEqual([]);
  });

  it('refuses an archive whose entries climb out of the folder', async () => {
    const job = await install('llama-b9000-bin-ubuntu-arm64.tar.gz');
    expect(job.phase).toBe('failed');
    expect(job.error).toMatch(/climbs out of its folder/);
    expect(fs.existsSync(path.join(t.studio.config.paths.llm, 'escaped.txt'))).toBe(false);
    expect(fs.existsSync(path.join(t.studio.config.paths.root, 'escaped.txt'))).toBe(false);
    expect(runtimesFolder()).toEqual([]);
  });

  it('refuses a GPU build whose smoke test shows the CPU only, quoting the log', async () => {
    const job = await install('llama-b9000-bin-ubuntu-vulkan-x64.tar.gz');
    expect(job.phase).toBe('failed');
    expect(job.error).toMatch(/refused as a GPU build/);
    expect(job.error).toMatch(/\(none\)|no usable GPU|offloaded 0/);
    expect(runtimesFolder()).toEqual([]);
    const events = (await (await t.api('/api/admin/events?types=llm.runtime.refused')).json()) as Array<{ type: string }>;
    expect(events).toHaveLength(3);
  }, 60_000);

  it('installs the recommended build, smoke-tested, active, and a real chat runs on it', async () => {
    const job = await install();
    expect(job.error).toBeNull();
    expect(job.phase).toBe('installed');
    const v = await view();
    expect(v.active).toBe('b9000-cpu');
    expect(v.installed).toHaveLength(1);
    const [build] = v.installed;
    expect(build!.version).toMatch(/\d/);
    expect(build!.path.startsWith(path.join(t.studio.config.paths.llm, 'runtimes', 'b9000-cpu'))).toBe(true);
    expect(v.binary).toBe(build!.path);
    // The release's library aliases became plain copies: no link exists in the installed folder.
    const all = fs.readdirSync(build!.dir, { recursive: true, withFileTypes: true });
    expect(all.some((e) => e.isSymbolicLink())).toBe(false);
    expect(all.some((e) => e.name === 'libllama.so.0')).toBe(true);
    expect(v.update_available).toBe(false);

    fs.mkdirSync(t.studio.config.paths.llmModels, { recursive: true });
    await writeTinyGguf(path.join(t.studio.config.paths.llmModels, 'tiny.gguf'));
    const start = await t.api('/api/admin/llm/start', json({ model: 'tiny.gguf', ctx_size: 256, threads: 2, n_gpu_layers: 0 }));
    expect(start.status, await start.clone().text()).toBe(200);
    const chat = await t.api('/api/admin/llm/chat', json({ messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 }));
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens).toBeGreaterThan(0);
  }, 90_000);

  it('shows a newer release without installing it, then switches and rolls back in one call', async () => {
    source.releases.unshift({ tag: 'b9001', assets: [{ name: 'llama-b9001-bin-ubuntu-x64.tar.gz', content: good }] });
    const before = await view(true);
    expect(before.update_available).toBe(true);
    expect(before.active).toBe('b9000-cpu');
    expect(before.installed).toHaveLength(1);

    expect((await install()).phase).toBe('installed');
    let v = await view();
    expect(v.active).toBe('b9001-cpu');
    expect(v.previous).toBe('b9000-cpu');
    expect(v.update_available).toBe(false);
    // The running server was restarted on the new build.
    const status = (await (await t.api('/api/admin/llm/status')).json()) as { running: boolean; active_model: string };
    expect(status).toMatchObject({ running: true, active_model: 'tiny.gguf' });

    const rolled = await t.api('/api/admin/llm/runtimes/rollback', { method: 'POST' });
    expect(await rolled.json()).toEqual({ status: 'activated', active: 'b9000-cpu', previous: 'b9001-cpu' });
    v = await view();
    expect(v.binary).toBe(v.installed.find((b) => b.id === 'b9000-cpu')!.path);
    const switched = await t.api('/api/admin/llm/runtimes/activate', json({ id: 'b9001-cpu' }));
    expect(await switched.json()).toEqual({ status: 'activated', active: 'b9001-cpu', previous: 'b9000-cpu' });
    expect((await t.api('/api/admin/llm/runtimes/activate', json({ id: 'nope' }))).status).toBe(404);
    expect((await t.api('/api/admin/llm/runtimes/b9001-cpu', { method: 'DELETE' })).status).toBe(409);
    await t.api('/api/admin/llm/stop', { method: 'POST' });
  }, 120_000);
});
