/**
 * The first-run guide's starter model (README "First-run guide"): an image checkpoint from the
 * models catalog, chosen for this machine's GPU memory.
 *
 * - Candidates: entries of the models catalog in `checkpoints` tagged `image` and not `refiner`:
 *   single-file checkpoints (model, text encoder and VAE in one), so one download runs a workflow.
 * - Memory: the largest GPU's; unified memory (Apple silicon) counts three quarters, the rest
 *   being the system's. A checkpoint fits when its size plus 1 GiB of working room does.
 * - Among those that fit, one a workflow here needs comes first (so "run your first workflow"
 *   can use it); then the largest. Nothing fits, or no GPU (CPU, or memory unknown): the smallest.
 */
import type { GpuReport } from '../../../server/contracts/gpu.contract.js';
import type { CatalogModel, CatalogResponse } from '../api/types.js';
import { formatBytes } from './format.js';

const WORKING_ROOM_BYTES = 1024 ** 3;
// The catalog's `size_gb` is in decimal gigabytes (as the hubs list them).

export interface StarterChoice {
  model: CatalogModel;
  /** Why this one, in a sentence. */
  why: string;
}

/** The single-file image checkpoints of the models catalog. */
export function starterCandidates(catalog: CatalogResponse | null): CatalogModel[] {
  return (catalog?.categories ?? []).flatMap((c) => c.models).filter((m) => m.dest === 'checkpoints' && m.tags.includes('image') && !m.tags.includes('refiner'));
}

/** GPU memory a checkpoint may use, in bytes; null on a CPU or when no GPU reported its memory. */
export function usableGpuMemory(gpu: GpuReport | null): { bytes: number; model: string } | null {
  if (!gpu || gpu.backend === 'cpu') return null;
  let best: { bytes: number; model: string } | null = null;
  for (const device of gpu.gpus) {
    if (device.memory_bytes === null) continue;
    const bytes = device.unified_memory ? device.memory_bytes * 0.75 : device.memory_bytes;
    if (!best || bytes > best.bytes) best = { bytes, model: device.model };
  }
  return best;
}

/** The starter model for this machine, or null when the catalog has no candidate. */
export function chooseStarter(candidates: readonly CatalogModel[], gpu: GpuReport | null, wanted: ReadonlySet<string>): StarterChoice | null {
  if (!candidates.length) return null;
  const bySize = [...candidates].sort((a, b) => a.size_gb - b.size_gb);
  const smallest = bySize[0]!;
  const memory = usableGpuMemory(gpu);
  if (!memory) return { model: smallest, why: 'No GPU was found, so the smallest image checkpoint: it runs on the CPU, slowly.' };
  const fitting = bySize.filter((m) => m.size_gb * 1e9 + WORKING_ROOM_BYTES <= memory.bytes);
  const room = `${formatBytes(memory.bytes)} of GPU memory (${memory.model})`;
  if (!fitting.length) return { model: smallest, why: `None fits in ${room} with room to work, so the smallest.` };
  const used = fitting.filter((m) => wanted.has(m.file));
  const pool = used.length ? used : fitting;
  const model = pool[pool.length - 1]!;
  return { model, why: `The largest image checkpoint${used.length ? ' a workflow here uses' : ''} that fits in ${room}.` };
}
