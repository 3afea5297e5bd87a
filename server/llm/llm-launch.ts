/**
 * The llama-server command line: always `-m`, `--host 127.0.0.1` and
 * `--port` (newer builds would otherwise start in router mode or on another port), plus the
 * configuration's offload, context, threads and sampling defaults. Pure, so it is unit-tested.
 */
import type { LlmConfig } from '../contracts/llm.contract.js';

export function llmServerArgs(modelPath: string, port: number, config: LlmConfig): string[] {
  return [
    '-m', modelPath,
    '--host', '127.0.0.1',
    '--port', String(port),
    '-ngl', String(config.n_gpu_layers),
    '-c', String(config.ctx_size),
    '-t', String(config.threads),
    '--temp', String(config.temp),
    '--top-p', String(config.top_p),
    '--top-k', String(config.top_k),
    '--repeat-penalty', String(config.repeat_penalty),
  ];
}
