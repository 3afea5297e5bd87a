/**
 * The LLM server configuration (spec "LLM configuration"), stored in `llm/config.json` and
 * written atomically. Keys starting with `_` are internal (the last model, for the idle restart)
 * and never returned.
 */
import fs from 'node:fs';
import { type LlmConfig, llmConfigFields } from '../contracts/llm.contract.js';
import { writeFileAtomic } from '../fs-durable.js';

/**
 * Server-wide defaults: llama.cpp's own sampling defaults, a 4 K context, and GPU layers on
 * automatic (-1: the fit estimate picks how many fit in the GPU's free memory at each start).
 */
const DEFAULT_LLM_CONFIG: LlmConfig = {
  n_gpu_layers: -1,
  ctx_size: 4096,
  threads: -1,
  temp: 0.8,
  top_p: 0.95,
  top_k: 40,
  repeat_penalty: 1.1,
};

export class LlmConfigStore {
  private stored: Record<string, unknown> = {};

  constructor(private readonly file: string) {
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) this.stored = parsed as Record<string, unknown>;
    } catch {
      // Missing or unreadable: the defaults stand until the first save.
    }
  }

  /** The full configuration (defaults under what was saved), without internal keys. */
  get(): LlmConfig {
    const merged: Record<string, unknown> = { ...DEFAULT_LLM_CONFIG };
    for (const key of Object.keys(DEFAULT_LLM_CONFIG)) {
      const value = this.stored[key];
      if (llmConfigFields.shape[key as keyof LlmConfig].safeParse(value).success) merged[key] = value;
    }
    return merged as LlmConfig;
  }

  /** An internal value (`_` key). */
  internal(key: `_${string}`): unknown {
    return this.stored[key];
  }

  /** Merge `patch` into the stored configuration and write it atomically. */
  async save(patch: Partial<LlmConfig> & Record<`_${string}`, unknown>): Promise<LlmConfig> {
    this.stored = { ...this.stored, ...patch };
    await writeFileAtomic(this.file, JSON.stringify(this.stored, null, 2));
    return this.get();
  }
}
