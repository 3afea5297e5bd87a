/**
 * The fit estimates the LLM page shows for each catalog entry, and the automatic `n_gpu_layers`.
 * GPU free memory comes from llama.cpp itself when a runtime is there (`--list-devices` reports
 * each device's free MiB, what the server will really get), else from the GPU probe's total
 * memory, else none (CPU only). Read at most every 30 s: the page polls, and each read starts a
 * process.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { GpuReport } from '../../gpu/index.js';
import { runCommand } from '../../process/run-command.js';
import { parseDevices } from '../runtimes/smoke-test.js';
import type { FitEstimateWire, FitView } from '../../contracts/llm-fit.contract.js';
import { estimateFit } from './fit-estimate.js';
import { readGgufShape } from './gguf-meta.js';

/** `source`: `llama.cpp` (its device list), `probe` (the GPU probe's total), or `none`. */
type GpuMemory = FitView['gpu'];

export interface FitDeps {
  modelsDir: string;
  /** The LLM server program in use (`LLM_BINARY` or the active build). */
  binary: () => string;
  binaryExists: () => boolean;
  env: NodeJS.ProcessEnv;
  gpu: () => Promise<GpuReport>;
  /** The LLM catalog's entries. */
  catalog: () => Array<{ file: string; size_gb: number }>;
  ctxSize: () => number;
}

const MiB = 1024 * 1024;

export class FitService {
  private memory: { at: number; value: GpuMemory } | null = null;

  constructor(private readonly deps: FitDeps) {}

  /** `GET /api/admin/llm/fit`: every catalog entry's estimate at `ctxSize` (default: the configuration's). */
  async view(ctxSize?: number): Promise<FitView> {
    const ctx = ctxSize ?? this.deps.ctxSize();
    const gpu = await this.gpuMemory();
    const models: Record<string, FitEstimateWire> = {};
    for (const entry of this.deps.catalog()) models[entry.file] = await this.estimate(entry.file, Math.round(entry.size_gb * 1e9), ctx, gpu.free_bytes);
    return { gpu, ctx_size: ctx, models };
  }

  /** The estimate of a model of `bytes` not on disk, at the configured context. */
  async estimateBytes(bytes: number): Promise<FitEstimateWire> {
    return estimateFit({ bytes }, this.deps.ctxSize(), (await this.gpuMemory()).free_bytes);
  }

  /** `n_gpu_layers` for a model file when the configuration says automatic. */
  async autoLayers(file: string, ctxSize: number): Promise<number> {
    const gpu = await this.gpuMemory();
    const bytes = fs.statSync(path.join(this.deps.modelsDir, file)).size;
    return (await this.estimate(file, bytes, ctxSize, gpu.free_bytes)).gpu_layers;
  }

  private async estimate(file: string, catalogBytes: number, ctx: number, free: number): Promise<FitEstimateWire> {
    const onDisk = path.join(this.deps.modelsDir, path.basename(file));
    let bytes = catalogBytes;
    let shape = null;
    try {
      bytes = fs.statSync(onDisk).size;
      shape = await readGgufShape(onDisk);
    } catch {
      // Not downloaded: the catalog's size, and guessed layers.
    }
    return estimateFit({ bytes, layers: shape?.layers, kvWidth: shape?.kvWidth }, ctx, free);
  }

  /** The GPU with the most free memory, as llama.cpp or the probe sees it. */
  async gpuMemory(): Promise<GpuMemory> {
    if (this.memory && Date.now() - this.memory.at < 30_000) return this.memory.value;
    let value: GpuMemory = { device: null, free_bytes: 0, total_bytes: 0, source: 'none' };
    if (this.deps.binaryExists()) {
      const run = await runCommand(this.deps.binary(), ['--list-devices'], { env: this.deps.env, timeoutMs: 20_000 });
      const best = parseDevices(`${run.stdout}\n${run.stderr}`)
        .filter((d) => d.freeMib !== null && !/^CPU/i.test(d.name))
        .sort((a, b) => b.freeMib! - a.freeMib!)[0];
      if (best) value = { device: `${best.name}: ${best.description}`, free_bytes: best.freeMib! * MiB, total_bytes: (best.totalMib ?? best.freeMib!) * MiB, source: 'llama.cpp' };
    }
    if (value.source === 'none') {
      const report = await this.deps.gpu().catch(() => null);
      const gpu = report?.gpus.filter((g) => g.memory_bytes).sort((a, b) => b.memory_bytes! - a.memory_bytes!)[0];
      // The probe knows the total only; what other programs hold is unknown, so a tenth is kept back.
      if (gpu) value = { device: gpu.model, free_bytes: Math.round(gpu.memory_bytes! * 0.9), total_bytes: gpu.memory_bytes!, source: 'probe' };
    }
    this.memory = { at: Date.now(), value };
    return value;
  }
}
