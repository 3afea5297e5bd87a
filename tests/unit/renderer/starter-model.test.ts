import { describe, expect, it } from 'vitest';
import type { GpuReport } from '../../../server/contracts/gpu.contract.js';
import type { CatalogModel, CatalogResponse } from '../../../renderer/src/api/types.js';
import { chooseStarter, starterCandidates, usableGpuMemory } from '../../../renderer/src/lib/starter-model.js';

const GIB = 1024 ** 3;
const entry = (file: string, size_gb: number, tags: string[], dest = 'checkpoints'): CatalogModel =>
  ({ name: file, file, dest, size_gb, tags, source: 'repohost', hosted_repo: 'o/r', status: 'not_downloaded', on_disk_bytes: 0 }) as CatalogModel;

// The shipped catalog's checkpoints, and a few that are not candidates.
const SDXL = entry('sd_xl_base_1.0.safetensors', 6.94, ['sdxl', 'base', 'image']);
const TURBO = entry('sd_xl_turbo_1.0_fp16.safetensors', 6.94, ['sdxl', 'turbo', 'image']);
const SD15 = entry('v1-5-pruned-emaonly-fp16.safetensors', 2.13, ['sd15', 'base', 'image']);
const FLUX = entry('flux1-schnell-fp8.safetensors', 17.2, ['flux', 'image', 'fp8']);
const CATALOG: CatalogResponse = {
  version: 1,
  date: '',
  stats: {} as CatalogResponse['stats'],
  categories: [
    { id: 'checkpoints', name: 'Checkpoints', models: [SDXL, entry('sd_xl_refiner_1.0.safetensors', 6.08, ['sdxl', 'refiner', 'image']), TURBO, SD15, FLUX, entry('svd_xt.safetensors', 9.56, ['svd', 'video'])] },
    { id: 'diffusion_models', name: 'Diffusion models', models: [entry('flux1-dev-fp8.safetensors', 11.9, ['flux', 'image'], 'diffusion_models')] },
  ],
};
const WANTED = new Set(['sd_xl_base_1.0.safetensors']);

function gpu(memoryGib: number | null, over: Partial<GpuReport['gpus'][number]> = {}, backend: GpuReport['backend'] = 'cuda'): GpuReport {
  return {
    backend,
    source: 'nvidia-smi',
    gpus: [{ index: 0, vendor: 'nvidia', model: 'RTX Test', memory_bytes: memoryGib === null ? null : memoryGib * GIB, unified_memory: false, driver_version: '555', ...over }],
    cuda_version: '12.4',
    rocm_version: null,
    problems: [],
    probed_at: '',
  };
}

describe('starter model', () => {
  it('takes single-file image checkpoints only (no refiner, no video, no bare diffusion model)', () => {
    expect(starterCandidates(CATALOG).map((m) => m.file)).toEqual([SDXL.file, TURBO.file, SD15.file, FLUX.file]);
    expect(starterCandidates(null)).toEqual([]);
  });

  it('picks the largest checkpoint a workflow here uses that fits, with 1 GiB to work in', () => {
    const candidates = starterCandidates(CATALOG);
    // 24 GiB: Flux (17.2 GB) fits too, but no workflow here uses it.
    expect(chooseStarter(candidates, gpu(24), WANTED)?.model.file).toBe(SDXL.file);
    // 8 GiB: 6.94 GB (6.46 GiB) + 1 GiB fits.
    const eight = chooseStarter(candidates, gpu(8), WANTED)!;
    expect(eight.model.file).toBe(SDXL.file);
    expect(eight.why).toMatch(/a workflow here uses that fits in 8\.00 GB of GPU memory \(RTX Test\)/);
    // 7 GiB: SDXL no longer fits; SD 1.5 does.
    expect(chooseStarter(candidates, gpu(7), WANTED)?.model.file).toBe(SD15.file);
  });

  it('without a used one that fits, the largest that fits', () => {
    expect(chooseStarter(starterCandidates(CATALOG), gpu(24), new Set())?.model.file).toBe(FLUX.file);
  });

  it('takes the smallest on a CPU, with unknown memory, or when nothing fits', () => {
    const candidates = starterCandidates(CATALOG);
    expect(chooseStarter(candidates, gpu(24, {}, 'cpu'), WANTED)).toMatchObject({ model: { file: SD15.file }, why: expect.stringMatching(/No GPU/) });
    expect(chooseStarter(candidates, gpu(null), WANTED)?.model.file).toBe(SD15.file);
    expect(chooseStarter(candidates, null, WANTED)?.model.file).toBe(SD15.file);
    expect(chooseStarter(candidates, gpu(2), WANTED)).toMatchObject({ model: { file: SD15.file }, why: expect.stringMatching(/None fits in 2\.00 GB/) });
    expect(chooseStarter([], gpu(24), WANTED)).toBeNull();
  });

  it('counts three quarters of unified memory, and the largest of several GPUs', () => {
    expect(usableGpuMemory(gpu(16, { unified_memory: true, vendor: 'apple' }, 'mps'))?.bytes).toBe(12 * GIB);
    const two = gpu(8);
    two.gpus.push({ ...two.gpus[0]!, index: 1, model: 'Big', memory_bytes: 24 * GIB });
    expect(usableGpuMemory(two)).toEqual({ bytes: 24 * GIB, model: 'Big' });
  });
});
