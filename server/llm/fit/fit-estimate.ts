/**
 * Does a model fit on the GPU? From the model file's size, the context size and the GPU's free
 * memory: the weights split evenly over the layers (plus one for the embeddings and output), the
 * KV cache (f16 K and V for every layer and context position), and a fixed reserve for llama.cpp's
 * compute buffers. All layers fit → `gpu`; some → `partial` with how many; none → `cpu`. The same
 * estimate chooses `n_gpu_layers` when the configuration leaves it on automatic (-1). Pure, so a
 * table of sizes, memory and contexts is unit-tested. An estimate, said as one: llama.cpp's own
 * numbers differ by a few percent with the quantization and the backend.
 */
import type { FitEstimateWire } from '../../contracts/llm-fit.contract.js';

/** What is known of a model: its size, and from its GGUF header when it is on disk. */
export interface ModelShape {
  bytes: number;
  /** Transformer blocks (`<arch>.block_count`). */
  layers?: number | null;
  /** K/V width per token per layer (`embedding_length / head_count * head_count_kv`). */
  kvWidth?: number | null;
}

/** llama.cpp's compute buffers and the driver's own share: kept free in every estimate. */
export const RESERVE_BYTES = 512 * 1024 * 1024;
const GB = 1e9;

/** Typical block counts by file size when the header is not at hand (a Q4 7B has 32, a 70B 80). */
export function guessLayers(bytes: number): number {
  if (bytes < 1.5 * GB) return 24;
  if (bytes < 3 * GB) return 28;
  if (bytes < 6 * GB) return 32;
  if (bytes < 12 * GB) return 40;
  if (bytes < 25 * GB) return 48;
  if (bytes < 50 * GB) return 64;
  return 80;
}

/** Typical K/V width by size (grouped-query attention: 8 KV heads of 128 in most current models). */
function guessKvWidth(bytes: number): number {
  return bytes < 1.5 * GB ? 512 : 1024;
}

const gib = (b: number) => `${(b / 1024 ** 3).toFixed(1)} GiB`;

/** The estimate for `model` with `ctxSize` positions and `freeBytes` of GPU memory. */
export function estimateFit(model: ModelShape, ctxSize: number, freeBytes: number): FitEstimateWire {
  const layers = model.layers && model.layers > 0 ? model.layers : guessLayers(model.bytes);
  const kvWidth = model.kvWidth && model.kvWidth > 0 ? model.kvWidth : guessKvWidth(model.bytes);
  const total = layers + 1;
  const perLayerWeights = model.bytes / total;
  // K and V, f16 (2 bytes), every context position, per block.
  const kvPerLayer = 2 * 2 * kvWidth * Math.max(ctxSize, 1);
  const need = model.bytes + layers * kvPerLayer + RESERVE_BYTES;
  const base = { total_layers: total, need_bytes: Math.round(need), free_bytes: Math.max(0, Math.round(freeBytes)) };
  if (freeBytes >= need) return { ...base, fit: 'gpu', gpu_layers: total, reason: `Fits on the GPU: about ${gib(need)} of ${gib(freeBytes)} free` };
  const room = freeBytes - RESERVE_BYTES;
  const n = room > 0 ? Math.min(total, Math.floor(room / (perLayerWeights + kvPerLayer))) : 0;
  if (n <= 0) return { ...base, fit: 'cpu', gpu_layers: 0, reason: freeBytes > 0 ? `CPU only: about ${gib(need)} needed, ${gib(freeBytes)} free on the GPU` : 'CPU only: no GPU memory found' };
  return { ...base, fit: 'partial', gpu_layers: n, reason: `Partly on the GPU: ${n} of ${total} layers (about ${gib(need)} needed, ${gib(freeBytes)} free)` };
}
