/**
 * `GET /api/admin/llm/fit` (README "LLM: what fits"): per LLM catalog entry, whether it fits on the
 * GPU at the context size, partly (how many layers) or CPU only.
 */
import { z } from 'zod';

export const fitQuery = z.object({ ctx_size: z.coerce.number().int().min(1).max(10_000_000).optional() });

export interface FitEstimateWire {
  fit: 'gpu' | 'partial' | 'cpu';
  gpu_layers: number;
  total_layers: number;
  need_bytes: number;
  free_bytes: number;
  reason: string;
}

export interface FitView {
  gpu: { device: string | null; free_bytes: number; total_bytes: number; source: 'llama.cpp' | 'probe' | 'none' };
  ctx_size: number;
  models: Record<string, FitEstimateWire>;
}
