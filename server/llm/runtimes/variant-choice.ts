/**
 * Which llama.cpp build fits this machine, and why, in the order users expect (LM Studio and Jan
 * pick the same way): CUDA matching the driver's CUDA version on an NVIDIA GPU, else Vulkan on any
 * GPU, else ROCm/HIP on an AMD GPU where one is published, else CPU; Metal on Apple Silicon. A CUDA
 * build newer than the driver supports would load and then fail (or fall back to the CPU), so
 * only builds at or below the driver's CUDA version count. Pure, so it is unit-tested.
 */
import type { RuntimeBuild, RuntimeOs } from './release-assets.js';
import { compareVersions } from '../../versions.js';

/** What the choice needs to know of the machine (from the GPU probe and the platform). */
export interface MachineFacts {
  os: RuntimeOs;
  arch: 'x64' | 'arm64';
  /** The GPU's maker, or null when no GPU was found. */
  gpuVendor: 'nvidia' | 'amd' | 'intel' | 'apple' | null;
  /** The highest CUDA version the NVIDIA driver supports ("12.8"), or null. */
  cudaVersion: string | null;
  /** The installed ROCm version ("7.2"), or null. */
  rocmVersion: string | null;
}

export interface VariantChoice {
  build: RuntimeBuild | null;
  reason: string;
}

/** Node's platform and architecture in release terms, or null where no build is published. */
export function platformOf(platform: NodeJS.Platform, arch: string): Pick<MachineFacts, 'os' | 'arch'> | null {
  const os: RuntimeOs | null = platform === 'linux' ? 'linux' : platform === 'win32' ? 'windows' : platform === 'darwin' ? 'macos' : null;
  const a = arch === 'x64' ? 'x64' : arch === 'arm64' ? 'arm64' : null;
  return os && a ? { os, arch: a } : null;
}


/** The build to install from `builds` (one release) for `machine`, with the reason in words. */
export function chooseVariant(builds: readonly RuntimeBuild[], machine: MachineFacts): VariantChoice {
  const mine = builds.filter((b) => b.os === machine.os && b.arch === machine.arch);
  const where = `${machine.os} ${machine.arch}`;
  if (mine.length === 0) return { build: null, reason: `This release publishes no build for ${where}` };
  const cpu = mine.find((b) => b.backend === 'cpu') ?? null;
  if (machine.os === 'macos') {
    const metal = mine.find((b) => b.backend === 'metal');
    if (metal) return { build: metal, reason: 'Apple Silicon: the Metal build uses the GPU' };
    return { build: cpu, reason: cpu ? 'Intel Mac: llama.cpp publishes only a CPU build for it' : `No build for ${where}` };
  }
  const gpu = machine.gpuVendor;
  if (!gpu) return { build: cpu, reason: cpu ? 'No GPU was found: the CPU build' : `No GPU was found and this release has no CPU build for ${where}` };
  const notes: string[] = [];
  if (gpu === 'nvidia') {
    const cuda = mine.filter((b) => b.backend === 'cuda' && b.backendVersion);
    if (!machine.cudaVersion) notes.push('the NVIDIA driver did not report its CUDA version');
    else if (cuda.length === 0) notes.push(`no CUDA build is published for ${where}`);
    else {
      const fitting = cuda.filter((b) => compareVersions(b.backendVersion!, machine.cudaVersion!) <= 0).sort((a, b) => compareVersions(b.backendVersion!, a.backendVersion!));
      if (fitting[0]) return { build: fitting[0], reason: `NVIDIA GPU, driver supports CUDA ${machine.cudaVersion}: the CUDA ${fitting[0].backendVersion} build` };
      notes.push(`the driver supports CUDA ${machine.cudaVersion}, older than every published CUDA build (${cuda.map((b) => b.backendVersion).join(', ')})`);
    }
  }
  const vulkan = mine.find((b) => b.backend === 'vulkan');
  if (vulkan) return { build: vulkan, reason: `${vendorName(gpu)} GPU${notes.length ? ` (${notes.join('; ')})` : ''}: the Vulkan build` };
  if (gpu === 'amd') {
    const rocm = mine.filter((b) => b.backend === 'rocm');
    const pick = rocm.find((b) => !b.backendVersion || !machine.rocmVersion || compareVersions(b.backendVersion, machine.rocmVersion) <= 0) ?? rocm[0];
    if (pick) return { build: pick, reason: `AMD GPU, no Vulkan build for ${where}: the ${pick.variant.toUpperCase()} build` };
  }
  notes.push(`no GPU build fits ${where}`);
  return { build: cpu, reason: cpu ? `${vendorName(gpu)} GPU, but ${notes.join('; ')}: the CPU build` : `${notes.join('; ')}, and no CPU build either` };
}

function vendorName(vendor: NonNullable<MachineFacts['gpuVendor']>): string {
  return vendor === 'nvidia' ? 'NVIDIA' : vendor === 'amd' ? 'AMD' : vendor === 'intel' ? 'Intel' : 'Apple';
}
