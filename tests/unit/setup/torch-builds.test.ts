/**
 * The table from the machine's GPU to the torch build: every row, the edges between rows, a
 * driver older than every build, and the platforms without a GPU build.
 */
import { describe, expect, it } from 'vitest';
import type { GpuReport } from '../../../server/contracts/gpu.contract.js';
import { chooseTorch, CUDA_VARIANTS, NEEDS_BYTES, ROCM_VARIANTS } from '../../../server/setup/torch-builds.js';
import { compareVersions } from '../../../server/versions.js';

const INDEX = 'https://download.pytorch.org/whl';
const nvidia = (cuda: string | null) => ({ backend: 'cuda', cuda_version: cuda, rocm_version: null, gpus: [{ model: 'NVIDIA GeForce RTX 4090' }] }) as unknown as GpuReport;
const amd = (rocm: string | null) => ({ backend: 'rocm', cuda_version: null, rocm_version: rocm, gpus: [{ model: 'Radeon RX 7900 XTX' }] }) as unknown as GpuReport;
const none = (backend: GpuReport['backend']) => ({ backend, cuda_version: null, rocm_version: null, gpus: [] }) as unknown as GpuReport;

describe('NVIDIA: the newest CUDA build the driver can run', () => {
  it.each([
    ['13.0', 'cu130'], ['13.1', 'cu130'],
    ['12.9', 'cu128'], ['12.8', 'cu128'],
    ['12.7', 'cu126'], ['12.6', 'cu126'],
    ['12.5', 'cu124'], ['12.4', 'cu124'],
    ['12.3', 'cu121'], ['12.2', 'cu121'], ['12.1', 'cu121'],
    ['12.0', 'cu118'], ['11.8', 'cu118'],
  ])('driver CUDA %s → %s', (cuda, variant) => {
    expect(chooseTorch(nvidia(cuda), 'linux', INDEX)).toMatchObject({ backend: 'cuda', variant, index_url: `${INDEX}/${variant}`, needs_bytes: NEEDS_BYTES.cuda });
  });

  it('covers every row of the table', () => {
    for (const [min, variant] of CUDA_VARIANTS) expect(chooseTorch(nvidia(min), 'win32', INDEX).variant).toBe(variant);
  });

  it('runs a driver older than every build on the CPU, saying to update the driver', () => {
    const choice = chooseTorch(nvidia('11.4'), 'linux', INDEX);
    expect(choice).toMatchObject({ backend: 'cpu', variant: 'cpu', index_url: `${INDEX}/cpu` });
    expect(choice.reason).toContain('Update the NVIDIA driver');
  });

  it('assumes CUDA 12.6 when the driver does not say', () => {
    expect(chooseTorch(nvidia(null), 'linux', INDEX)).toMatchObject({ variant: 'cu126' });
  });
});

describe('AMD: the ROCm build of the installed release', () => {
  it.each([
    ['6.4.1', 'rocm6.4'], ['6.3.0', 'rocm6.3'], ['6.2.4', 'rocm6.2'], ['6.1.3', 'rocm6.1'], ['6.0.2', 'rocm6.0'], ['5.7.1', 'rocm5.7'], ['7.0.0', 'rocm6.4'],
  ])('ROCm %s → %s', (rocm, variant) => {
    expect(chooseTorch(amd(rocm), 'linux', INDEX)).toMatchObject({ backend: 'rocm', variant, index_url: `${INDEX}/${variant}`, needs_bytes: NEEDS_BYTES.rocm });
  });

  it('covers every row of the table', () => {
    for (const [min, variant] of ROCM_VARIANTS) expect(chooseTorch(amd(min), 'linux', INDEX).variant).toBe(variant);
  });

  it('falls back to the CPU for a ROCm older than every build, and off Linux', () => {
    expect(chooseTorch(amd('5.6.0'), 'linux', INDEX)).toMatchObject({ backend: 'cpu', variant: 'cpu' });
    expect(chooseTorch(amd('6.2.0'), 'win32', INDEX)).toMatchObject({ backend: 'cpu', variant: 'cpu' });
  });

  it('takes the newest ROCm build when the release is unknown', () => {
    expect(chooseTorch(amd(null), 'linux', INDEX)).toMatchObject({ backend: 'rocm', variant: ROCM_VARIANTS[0]![1] });
  });
});

describe('Apple silicon and the CPU', () => {
  it('takes the general index build on Apple silicon (it carries MPS)', () => {
    expect(chooseTorch(none('mps'), 'darwin', INDEX)).toMatchObject({ backend: 'mps', variant: null, index_url: null, needs_bytes: NEEDS_BYTES.mps });
  });

  it("takes the torch index's CPU build on a CPU-only Linux or Windows box, and the general one on an Intel Mac", () => {
    expect(chooseTorch(none('cpu'), 'linux', INDEX)).toMatchObject({ backend: 'cpu', variant: 'cpu', index_url: `${INDEX}/cpu` });
    expect(chooseTorch(none('cpu'), 'win32', `${INDEX}/`)).toMatchObject({ index_url: `${INDEX}/cpu` });
    expect(chooseTorch(none('cpu'), 'darwin', INDEX)).toMatchObject({ backend: 'cpu', variant: null, index_url: null });
  });
});

it('compares versions by number, not by text', () => {
  expect(compareVersions('12.10', '12.8')).toBeGreaterThan(0);
  expect(compareVersions('6.2', '6.2.0')).toBe(0);
  expect(compareVersions('5.7.1-98', '6.0')).toBeLessThan(0);
});
