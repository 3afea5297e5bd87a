/**
 * Release asset names → builds, and the variant Studio picks for a machine, with its reason.
 * Asset names as llama.cpp's release job publishes them.
 */
import { describe, expect, it } from 'vitest';
import { buildsOf, parseBuildName, sha256Of, type ReleaseAsset } from '../../../server/llm/runtimes/release-assets.js';
import { chooseVariant, type MachineFacts } from '../../../server/llm/runtimes/variant-choice.js';
import { compareVersions } from '../../../server/versions.js';

const NAMES = [
  'llama-b7100-bin-macos-arm64.tar.gz',
  'llama-b7100-bin-macos-x64.tar.gz',
  'llama-b7100-xcframework.zip',
  'llama-b7100-bin-ubuntu-x64.tar.gz',
  'llama-b7100-bin-ubuntu-arm64.tar.gz',
  'llama-b7100-bin-ubuntu-s390x.tar.gz',
  'llama-b7100-bin-ubuntu-vulkan-x64.tar.gz',
  'llama-b7100-bin-ubuntu-vulkan-arm64.tar.gz',
  'llama-b7100-bin-ubuntu-rocm-7.2-x64.tar.gz',
  'llama-b7100-bin-ubuntu-openvino-2026.0-x64.tar.gz',
  'llama-b7100-bin-android-arm64.tar.gz',
  'llama-b7100-bin-win-cpu-x64.zip',
  'llama-b7100-bin-win-cpu-arm64.zip',
  'llama-b7100-bin-win-cuda-12.4-x64.zip',
  'cudart-llama-bin-win-cuda-12.4-x64.zip',
  'llama-b7100-bin-win-cuda-13.3-x64.zip',
  'cudart-llama-bin-win-cuda-13.3-x64.zip',
  'llama-b7100-bin-win-vulkan-x64.zip',
  'llama-b7100-bin-win-hip-radeon-x64.zip',
  'llama-b7100-bin-win-opencl-adreno-arm64.zip',
  'llama-b7100-ui.tar.gz',
];
const assets: ReleaseAsset[] = NAMES.map((name) => ({ name, size: 1000, url: `https://x/${name}`, digest: `sha256:${'a'.repeat(64)}` }));
const builds = buildsOf(assets);
const machine = (m: Partial<MachineFacts>): MachineFacts => ({ os: 'linux', arch: 'x64', gpuVendor: null, cudaVersion: null, rocmVersion: null, ...m });
const pick = (m: Partial<MachineFacts>) => chooseVariant(builds, machine(m));

describe('release asset names', () => {
  it('reads the variant of every published build and leaves the rest out', () => {
    expect(builds.map((b) => `${b.os}/${b.arch}/${b.variant}`)).toEqual([
      'macos/arm64/metal', 'macos/x64/cpu', 'linux/x64/cpu', 'linux/arm64/cpu', 'linux/x64/vulkan', 'linux/arm64/vulkan', 'linux/x64/rocm-7.2',
      'windows/x64/cpu', 'windows/arm64/cpu', 'windows/x64/cuda-12.4', 'windows/x64/cuda-13.3', 'windows/x64/vulkan', 'windows/x64/hip',
    ]);
    expect(parseBuildName('llama-b1-bin-ubuntu-s390x.tar.gz')).toBeNull();
  });

  it('attaches the CUDA runtime archive to its Windows CUDA build', () => {
    expect(builds.find((b) => b.variant === 'cuda-12.4')?.companion?.name).toBe('cudart-llama-bin-win-cuda-12.4-x64.zip');
    expect(builds.find((b) => b.variant === 'vulkan' && b.os === 'linux')?.companion).toBeNull();
  });

  it('reads a published digest, and nothing else', () => {
    expect(sha256Of(`sha256:${'AB'.repeat(32)}`)).toBe('ab'.repeat(32));
    expect(sha256Of(null)).toBeNull();
    expect(sha256Of('md5:abc')).toBeNull();
  });
});

describe('variant choice', () => {
  it('CUDA matching the driver: the newest CUDA build the driver supports', () => {
    expect(pick({ os: 'windows', gpuVendor: 'nvidia', cudaVersion: '13.4' }).build?.variant).toBe('cuda-13.3');
    expect(pick({ os: 'windows', gpuVendor: 'nvidia', cudaVersion: '12.8' }).build?.variant).toBe('cuda-12.4');
    const r = pick({ os: 'windows', gpuVendor: 'nvidia', cudaVersion: '12.8' }).reason;
    expect(r).toMatch(/CUDA 12.8.*CUDA 12.4/);
  });

  it('an NVIDIA driver older than every CUDA build, or Linux (no CUDA build published): Vulkan, saying why', () => {
    const old = pick({ os: 'windows', gpuVendor: 'nvidia', cudaVersion: '11.8' });
    expect(old.build?.variant).toBe('vulkan');
    expect(old.reason).toMatch(/older than every published CUDA build/);
    const linux = pick({ gpuVendor: 'nvidia', cudaVersion: '12.8' });
    expect(linux.build?.variant).toBe('vulkan');
    expect(linux.reason).toMatch(/no CUDA build is published for linux x64/);
  });

  it('AMD: Vulkan where published, else ROCm/HIP', () => {
    expect(pick({ gpuVendor: 'amd', rocmVersion: '7.2' }).build?.variant).toBe('vulkan');
    const noVulkan = chooseVariant(builds.filter((b) => b.backend !== 'vulkan'), machine({ gpuVendor: 'amd', rocmVersion: '7.2' }));
    expect(noVulkan.build?.variant).toBe('rocm-7.2');
    const winNoVulkan = chooseVariant(builds.filter((b) => b.backend !== 'vulkan'), machine({ os: 'windows', gpuVendor: 'amd' }));
    expect(winNoVulkan.build?.variant).toBe('hip');
  });

  it('no GPU: CPU; Apple Silicon: Metal; Intel Mac: CPU; a GPU with no GPU build: CPU with the reason', () => {
    expect(pick({}).build?.variant).toBe('cpu');
    expect(pick({}).reason).toMatch(/No GPU was found/);
    expect(pick({ os: 'macos', arch: 'arm64', gpuVendor: 'apple' }).build?.variant).toBe('metal');
    expect(pick({ os: 'macos', arch: 'x64' }).build?.variant).toBe('cpu');
    const onlyCpu = chooseVariant(builds.filter((b) => b.backend === 'cpu'), machine({ gpuVendor: 'intel' }));
    expect(onlyCpu.build?.variant).toBe('cpu');
    expect(onlyCpu.reason).toMatch(/Intel GPU, but no GPU build fits linux x64/);
  });

  it('a platform without builds gets none, with the reason', () => {
    expect(chooseVariant(builds, machine({ os: 'linux', arch: 'arm64', gpuVendor: 'nvidia' })).build?.variant).toBe('vulkan');
    expect(chooseVariant([], machine({})).build).toBeNull();
  });

  it('compares versions numerically', () => {
    expect(compareVersions('12.10', '12.4')).toBeGreaterThan(0);
    expect(compareVersions('12.4', '12.4.0')).toBe(0);
  });
});
