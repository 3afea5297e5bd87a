/**
 * Any GGUF from the repository host (`/api/admin/llm/repo-files`, README "LLM: any GGUF").
 */
import { z } from 'zod';
import type { FitEstimateWire } from './llm-fit.contract.js';

export const repoFilesQuery = z.object({ repo: z.string({ error: 'required (owner/name)' }).min(3).max(200) });
export const repoFileAddBody = z.object({ repo: z.string().min(3).max(200), path: z.string().min(1).max(1000) });

export interface RepoGgufFile {
  path: string;
  file: string;
  size: number;
  quantization: string | null;
  sha256: string | null;
  /** `split`: one part of a split model; `projector`: a vision projector (mmproj). */
  kind: 'model' | 'split' | 'projector';
  in_catalog: boolean;
  fit: FitEstimateWire;
}

export interface RepoGgufView {
  repo: string;
  files: RepoGgufFile[];
  recommended: string | null;
  reason: string;
}
