/** ENGINE_GPUS: one engine per further GPU, each on its own port with its own CUDA_VISIBLE_DEVICES. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.js';
import { managedLaunch } from '../../../server/engine/engine-launch.js';
import { gpuEngineConfig, gpuEngines, gpuEnv } from '../../../server/engine/pool/gpu-engines.js';
import { silentLogger } from '../../../server/logging.js';

const root = path.resolve('/data/studio');
const config = (env: NodeJS.ProcessEnv) => loadConfig({ STUDIO_DIR: root, ENGINE_PORT: '9188', ...env }, { probeEngine: async () => false });

describe('engines per GPU', () => {
  it('parses ENGINE_GPUS and refuses what is not a list of GPU indexes', async () => {
    expect((await config({ ENGINE_GPUS: '0, 1,1' })).engine.gpus).toEqual([0, 1]);
    expect((await config({})).engine.gpus).toEqual([]);
    await expect(config({ ENGINE_GPUS: '0,x' })).rejects.toThrow(/ENGINE_GPUS/);
  });

  it('starts a managed engine per further GPU on the next ports, each seeing only its GPU, sharing the model folders', async () => {
    const cfg = await config({ ENGINE_MODE: 'managed', ENGINE_DIR: '/opt/engine', ENGINE_GPUS: '0,2,3' });
    const members = gpuEngines(cfg, { clientId: 'c', logger: silentLogger });
    expect(members.map((m) => [m.id, m.kind, m.url])).toEqual([
      ['gpu2', 'gpu', 'http://127.0.0.1:9189'],
      ['gpu3', 'gpu', 'http://127.0.0.1:9190'],
    ]);
    const launch = managedLaunch(gpuEngineConfig(cfg, 2, 1), { env: gpuEnv({ PATH: '/usr/bin' }, 2) });
    expect(launch.env).toEqual({ PATH: '/usr/bin', CUDA_VISIBLE_DEVICES: '2' });
    expect(launch.args).toContain('9189');
    // Same input, output and model folders; a temporary folder of its own (the engine empties it at start).
    expect(launch.args[launch.args.indexOf('--output-directory') + 1]).toBe(path.join(root, 'assets', 'output'));
    expect(launch.args[launch.args.indexOf('--temp-directory') + 1]).toBe(path.join(root, 'engine', 'gpu2', 'temp'));
  });

  it('adds none for one GPU or an external engine', async () => {
    expect(gpuEngines(await config({ ENGINE_GPUS: '1' }), { clientId: 'c', logger: silentLogger })).toEqual([]);
    expect(gpuEngines(await config({ ENGINE_MODE: 'external', ENGINE_GPUS: '0,1' }), { clientId: 'c', logger: silentLogger })).toEqual([]);
  });
});
