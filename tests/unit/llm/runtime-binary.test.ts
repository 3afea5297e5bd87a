/**
 * Which program the LLM server runs: LLM_BINARY when set, whatever is installed; else the active
 * installed build (while its binary exists); else `llama-server` on PATH.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../../server/events/event-bus.js';
import { silentLogger } from '../../../server/logging.js';
import { ReleaseSourceClient } from '../../../server/llm/runtimes/release-source.client.js';
import { RuntimeStore } from '../../../server/llm/runtimes/runtime.store.js';
import { RuntimesService } from '../../../server/llm/runtimes/runtimes.service.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function service(override: string | null): Promise<RuntimesService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-rt-'));
  dirs.push(dir);
  const binary = path.join(dir, 'b1-cpu', 'llama-server');
  fs.mkdirSync(path.dirname(binary));
  fs.writeFileSync(binary, '');
  const store = new RuntimeStore(path.join(dir, 'runtimes.json'));
  await store.add({ id: 'b1-cpu', tag: 'b1', variant: 'cpu', backend: 'cpu', origin: 'x.tar.gz', dir: path.dirname(binary), binary, version: '1', installed_at: '2026-01-01T00:00:00Z', devices: [], gpu_layers: null, reason: null });
  await store.activate('b1-cpu');
  return new RuntimesService({
    runtimesDir: dir,
    releases: new ReleaseSourceClient('http://127.0.0.1:9'),
    downloads: { enqueue: () => null, statusEntries: () => ({}), forget: () => undefined, cancel: async () => false },
    gpu: async () => ({ gpuVendor: null, cudaVersion: null, rocmVersion: null }),
    env: {},
    events: new EventBus({ file: path.join(dir, 'events.jsonl'), logger: silentLogger }),
    logger: silentLogger,
    override,
    maxUnpackBytes: 1 << 20,
    sourceBuild: { script: 'none', cacheDir: dir },
    onActiveChanged: async () => undefined,
  });
}

describe('the LLM server program', () => {
  it('is LLM_BINARY when set, even with an active installed build', async () => {
    expect((await service('/opt/llama/llama-server')).binary()).toBe('/opt/llama/llama-server');
  });
  it('is the active build otherwise, and llama-server on PATH once its binary is gone', async () => {
    const rt = await service(null);
    const active = rt.store.active()!;
    expect(rt.binary()).toBe(active.binary);
    fs.rmSync(active.binary);
    expect(rt.binary()).toBe('llama-server');
  });
});
