/**
 * Which torch build fits the machine: a table from the driver's CUDA version (NVIDIA) or the ROCm
 * release (AMD) to the torch index's wheel variant, plus Apple silicon and the CPU. The NVIDIA
 * driver runs any wheel built for a CUDA version up to the one it reports, so the newest variant
 * at or below it is taken; a driver older than the oldest variant gets the CPU build, with the
 * reason (update the driver) said in plain words.
 */
import type { GpuReport } from '../contracts/gpu.contract.js';
import type { TorchChoice } from '../contracts/setup.contract.js';
import { compareVersions } from '../versions.js';

const GB = 1e9;

/** CUDA wheel variants, newest first: [lowest driver CUDA version, variant]. */
export const CUDA_VARIANTS: ReadonlyArray<readonly [string, string]> = [
  ['13.0', 'cu130'],
  ['12.8', 'cu128'],
  ['12.6', 'cu126'],
  ['12.4', 'cu124'],
  ['12.1', 'cu121'],
  ['11.8', 'cu118'],
];

/** ROCm wheel variants, newest first: [lowest ROCm release, variant]. */
export const ROCM_VARIANTS: ReadonlyArray<readonly [string, string]> = [
  ['6.4', 'rocm6.4'],
  ['6.3', 'rocm6.3'],
  ['6.2', 'rocm6.2'],
  ['6.1', 'rocm6.1'],
  ['6.0', 'rocm6.0'],
  ['5.7', 'rocm5.7'],
];

/** Disk an install needs per backend: the engine (~0.3 GB), the environment and torch with its runtime libraries. */
export const NEEDS_BYTES = { cuda: 10 * GB, rocm: 22 * GB, mps: 3 * GB, cpu: 3 * GB } as const;

/** The torch build for `gpu` on `platform`, with torch wheels from `torchIndexUrl` (`https://download.pytorch.org/whl`). */
export function chooseTorch(gpu: Pick<GpuReport, 'backend' | 'cuda_version' | 'rocm_version' | 'gpus'>, platform: NodeJS.Platform, torchIndexUrl: string): TorchChoice {
  const at = (variant: string) => `${torchIndexUrl.replace(/\/+$/, '')}/${variant}`;
  const model = gpu.gpus[0]?.model ?? 'GPU';
  if (gpu.backend === 'cuda') {
    const cuda = gpu.cuda_version;
    if (!cuda) return { backend: 'cuda', variant: 'cu126', index_url: at('cu126'), reason: `${model}: the driver did not say which CUDA it supports; CUDA 12.6 build assumed`, needs_bytes: NEEDS_BYTES.cuda };
    const row = CUDA_VARIANTS.find(([min]) => compareVersions(cuda, min) >= 0);
    if (!row) return cpu(platform, at, `${model}: its driver supports CUDA ${cuda}, older than torch's oldest build (CUDA ${CUDA_VARIANTS.at(-1)![0]}). Update the NVIDIA driver to use the GPU; until then the CPU build`);
    return { backend: 'cuda', variant: row[1], index_url: at(row[1]), reason: `${model}: driver supports CUDA ${cuda}, so the CUDA ${row[0]} build`, needs_bytes: NEEDS_BYTES.cuda };
  }
  if (gpu.backend === 'rocm') {
    if (platform !== 'linux') return cpu(platform, at, `${model}: torch's ROCm builds run on Linux only`);
    const rocm = gpu.rocm_version;
    if (!rocm) return { backend: 'rocm', variant: ROCM_VARIANTS[0]![1], index_url: at(ROCM_VARIANTS[0]![1]), reason: `${model}: the ROCm release is unknown; the newest ROCm build (${ROCM_VARIANTS[0]![0]}) assumed`, needs_bytes: NEEDS_BYTES.rocm };
    const row = ROCM_VARIANTS.find(([min]) => compareVersions(rocm, min) >= 0);
    if (!row) return cpu(platform, at, `${model}: ROCm ${rocm} is older than torch's oldest ROCm build (${ROCM_VARIANTS.at(-1)![0]}). Update ROCm to use the GPU; until then the CPU build`);
    return { backend: 'rocm', variant: row[1], index_url: at(row[1]), reason: `${model}: ROCm ${rocm}, so the ROCm ${row[0]} build`, needs_bytes: NEEDS_BYTES.rocm };
  }
  if (gpu.backend === 'mps') {
    // macOS wheels on the general index carry the Metal (MPS) backend.
    return { backend: 'mps', variant: null, index_url: null, reason: `${model}: Apple silicon, torch's macOS build with Metal (MPS)`, needs_bytes: NEEDS_BYTES.mps };
  }
  return cpu(platform, at, 'No supported GPU found: the CPU build (slow, but every workflow runs)');
}

function cpu(platform: NodeJS.Platform, at: (variant: string) => string, reason: string): TorchChoice {
  // On macOS the general index's build is the CPU build; elsewhere it would pull CUDA libraries.
  if (platform === 'darwin') return { backend: 'cpu', variant: null, index_url: null, reason, needs_bytes: NEEDS_BYTES.cpu };
  return { backend: 'cpu', variant: 'cpu', index_url: at('cpu'), reason, needs_bytes: NEEDS_BYTES.cpu };
}

