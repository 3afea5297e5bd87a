/**
 * The GPU probe against fake vendor tools on PATH that print what the real ones print (several
 * drivers and boards), a tool that fails the way a machine without its driver does, and none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GpuProbe, probeGpus } from '../../../server/gpu/index.js';
import { gpuReportSchema } from '../../../server/contracts/gpu.contract.js';
import { fakeGpuPath, writeFakeGpuTools, type FakeGpuTools } from '../../helpers/fake-gpu-tools.js';

const MIB = 1024 * 1024;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function machine(tools: FakeGpuTools): NodeJS.ProcessEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-probe-'));
  dirs.push(dir);
  // ROCM_PATH pointed nowhere: the release must come from the tree beside rocm-smi, not this machine's /opt/rocm.
  return { PATH: fakeGpuPath(writeFakeGpuTools(dir, tools)), ROCM_PATH: path.join(dir, 'no-rocm') };
}

async function probe(tools: FakeGpuTools, platform: NodeJS.Platform = 'linux') {
  const report = await probeGpus({ env: machine(tools), platform });
  expect(gpuReportSchema.parse(report)).toEqual(report);
  return report;
}

describe('NVIDIA through nvidia-smi', () => {
  it('reads two RTX 4060 Ti on driver 550 (CUDA 12.4)', async () => {
    const report = await probe({ nvidia: 'nvidia-550-rtx4060ti-x2' });
    expect(report).toMatchObject({ backend: 'cuda', source: 'nvidia-smi', cuda_version: '12.4', rocm_version: null, problems: [] });
    expect(report.gpus).toEqual([
      { index: 0, vendor: 'nvidia', model: 'NVIDIA GeForce RTX 4060 Ti', memory_bytes: 16380 * MIB, unified_memory: false, driver_version: '550.54.14' },
      { index: 1, vendor: 'nvidia', model: 'NVIDIA GeForce RTX 4060 Ti', memory_bytes: 16380 * MIB, unified_memory: false, driver_version: '550.54.14' },
    ]);
  });

  it('reads the older table of driver 470 (CUDA 11.4) and the newest of driver 580 (CUDA 13.0)', async () => {
    const t4 = await probe({ nvidia: 'nvidia-470-tesla-t4' });
    expect(t4).toMatchObject({ backend: 'cuda', cuda_version: '11.4' });
    expect(t4.gpus).toMatchObject([{ model: 'Tesla T4', memory_bytes: 15109 * MIB, driver_version: '470.82.01' }]);
    const blackwell = await probe({ nvidia: 'nvidia-580-rtx5090' });
    expect(blackwell).toMatchObject({ backend: 'cuda', cuda_version: '13.0' });
    expect(blackwell.gpus).toMatchObject([{ model: 'NVIDIA GeForce RTX 5090', memory_bytes: 32607 * MIB, driver_version: '580.65.06' }]);
  });

  it('falls back to the CPU and says why when nvidia-smi cannot reach its driver', async () => {
    const report = await probe({ nvidia: 'no-driver' });
    expect(report).toMatchObject({ backend: 'cpu', source: 'none', gpus: [], cuda_version: null });
    expect(report.problems).toEqual([expect.stringMatching(/^nvidia-smi failed \(exit 9\): NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver/)]);
  });
});

describe('AMD through rocm-smi', () => {
  it('reads an RX 7900 XTX under ROCm 6.2 with the release from the tree beside rocm-smi', async () => {
    const report = await probe({ rocm: 'rocm-6.2-rx7900xtx.json', rocmVersion: '6.2.0-66' });
    expect(report).toMatchObject({ backend: 'rocm', source: 'rocm-smi', rocm_version: '6.2.0', cuda_version: null, problems: [] });
    expect(report.gpus).toEqual([{ index: 0, vendor: 'amd', model: 'Radeon RX 7900 XTX', memory_bytes: 25753026560, unified_memory: false, driver_version: '6.8.5' }]);
  });

  it("reads ROCm 5's spelling of the keys, and several cards", async () => {
    const navi = await probe({ rocm: 'rocm-5.7-rx6800.json', rocmVersion: '5.7.1-98' });
    expect(navi).toMatchObject({ backend: 'rocm', rocm_version: '5.7.1' });
    expect(navi.gpus).toMatchObject([{ model: 'Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]', memory_bytes: 17163091968, driver_version: '6.2.4' }]);
    const mi300 = await probe({ rocm: 'rocm-6.4-mi300x-x2.json', rocmVersion: '6.4.1' });
    expect(mi300.gpus.map((g) => [g.index, g.model])).toEqual([[0, 'AMD Instinct MI300X'], [1, 'AMD Instinct MI300X']]);
  });

  it('still reports the card when the ROCm release cannot be found, saying so', async () => {
    const report = await probe({ rocm: 'rocm-6.2-rx7900xtx.json' });
    expect(report).toMatchObject({ backend: 'rocm', rocm_version: null });
    expect(report.problems).toEqual([expect.stringContaining('ROCm release')]);
  });

  it('prefers NVIDIA when a box holds cards of both vendors, and lists them all', async () => {
    const report = await probe({ nvidia: 'nvidia-580-rtx5090', rocm: 'rocm-6.2-rx7900xtx.json', rocmVersion: '6.2.0' });
    expect(report).toMatchObject({ backend: 'cuda', cuda_version: '13.0', rocm_version: '6.2.0' });
    expect(report.gpus.map((g) => g.vendor)).toEqual(['nvidia', 'amd']);
  });
});

describe('macOS through system_profiler', () => {
  it('reads Apple silicon as MPS with the machine memory shared', async () => {
    const report = await probe({ macos: 'macos-m2pro.json', macosVersion: '14.5' }, 'darwin');
    expect(report).toMatchObject({ backend: 'mps', source: 'system_profiler' });
    expect(report.gpus).toEqual([{ index: 0, vendor: 'apple', model: 'Apple M2 Pro', memory_bytes: os.totalmem(), unified_memory: true, driver_version: 'macOS 14.5' }]);
  });

  it('runs an Intel Mac on the CPU, listing its cards with their own memory', async () => {
    const report = await probe({ macos: 'macos-intel-radeon.json' }, 'darwin');
    expect(report).toMatchObject({ backend: 'cpu', source: 'system_profiler' });
    expect(report.gpus.map((g) => [g.vendor, g.model, g.memory_bytes])).toEqual([
      ['intel', 'Intel UHD Graphics 630', 1536 * MIB],
      ['amd', 'AMD Radeon Pro 5500M', 8 * 1024 * MIB],
    ]);
  });
});

describe('no GPU tool', () => {
  it('is the CPU, with nothing to complain about', async () => {
    const report = await probe({});
    expect(report).toMatchObject({ backend: 'cpu', source: 'none', gpus: [], cuda_version: null, rocm_version: null, problems: [] });
  });

  it('keeps one reading until asked for a fresh one', async () => {
    const env = machine({});
    const gpuProbe = new GpuProbe({ env, platform: 'linux' });
    const first = await gpuProbe.read();
    expect(first.backend).toBe('cpu');
    // A driver arrives: the kept reading stays until a fresh one is asked for.
    const later = machine({ nvidia: 'nvidia-550-rtx4060ti-x2' });
    env.PATH = later.PATH;
    expect(await gpuProbe.read()).toBe(first);
    expect((await gpuProbe.read({ fresh: true })).backend).toBe('cuda');
  });
});
