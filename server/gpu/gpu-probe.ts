/**
 * The machine's GPUs and the compute backend they offer, from the vendors' own tools: `nvidia-smi`
 * and `rocm-smi` on Linux and Windows, `system_profiler` on macOS; none answering means the CPU.
 * Reading never throws: a missing or broken tool is an absent GPU plus a line in `problems`.
 */
import type { GpuBackend, GpuDevice, GpuReport } from '../contracts/gpu.contract.js';
import { runCommand } from '../process/run-command.js';
import { readMacGpus } from './macos-gpu.js';
import { readNvidia } from './nvidia-smi.js';
import { readRocm } from './rocm-smi.js';
import type { ToolReading } from './tool-reading.js';

export interface GpuProbeOptions {
  /** The children's environment (`childEnvironment(...)`): its PATH decides which tools are found. */
  env: NodeJS.ProcessEnv;
  /** The `nvidia-smi` to run (`STUDIO_NVIDIA_SMI`); default `nvidia-smi` on PATH. */
  nvidiaSmi?: string;
  /** Default: this process's platform. */
  platform?: NodeJS.Platform;
  /** Per tool call; a hung driver must not hold the setup page. Default 10 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Read the GPUs once. */
export async function probeGpus(options: GpuProbeOptions): Promise<GpuReport> {
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const readings: Array<[string, ToolReading]> = [];
  if (platform === 'darwin') {
    const macos = await macosVersion(options.env, timeoutMs);
    readings.push(['system_profiler', await readMacGpus('system_profiler', options.env, timeoutMs, macos)]);
  } else {
    // Both, at once: a box may hold cards of both vendors, and each tool may take a second.
    const [nvidia, rocm] = await Promise.all([
      readNvidia(options.nvidiaSmi ?? 'nvidia-smi', options.env, timeoutMs),
      readRocm('rocm-smi', options.env, timeoutMs),
    ]);
    readings.push(['nvidia-smi', nvidia], ['rocm-smi', rocm]);
  }
  return combine(readings, new Date());
}

/** One report from the tools' readings: the first tool that found a usable GPU decides the backend. */
function combine(readings: ReadonlyArray<[string, ToolReading]>, at: Date): GpuReport {
  const gpus: GpuDevice[] = readings.flatMap(([, reading]) => reading.devices);
  const found = (tool: string) => readings.find(([name, r]) => name === tool && r.status === 'ok')?.[1];
  const nvidia = found('nvidia-smi');
  const rocm = found('rocm-smi');
  const mac = found('system_profiler');
  let backend: GpuBackend = 'cpu';
  let source: GpuReport['source'] = 'none';
  if (nvidia) [backend, source] = ['cuda', 'nvidia-smi'];
  else if (rocm) [backend, source] = ['rocm', 'rocm-smi'];
  else if (mac) {
    source = 'system_profiler';
    // torch's Metal backend (MPS) ships only for Apple silicon; an Intel Mac runs on the CPU.
    if (mac.devices.some((d) => d.vendor === 'apple')) backend = 'mps';
  }
  return {
    backend,
    source,
    gpus,
    cuda_version: nvidia?.cudaVersion ?? null,
    rocm_version: rocm?.rocmVersion ?? null,
    problems: readings.flatMap(([, r]) => (r.problem ? [r.problem] : [])),
    probed_at: at.toISOString(),
  };
}

/** The reading kept for the life of the process (GPUs do not come and go), re-read on request. */
export class GpuProbe {
  private last: Promise<GpuReport> | null = null;

  constructor(private readonly options: GpuProbeOptions) {}

  /** The report; `fresh` reads the tools again (after a driver install, say). Concurrent callers share one reading. */
  read(opts: { fresh?: boolean } = {}): Promise<GpuReport> {
    if (!this.last || opts.fresh) this.last = probeGpus(this.options);
    return this.last;
  }
}

async function macosVersion(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | null> {
  const result = await runCommand('sw_vers', ['-productVersion'], { env, timeoutMs });
  const text = result.code === 0 ? result.stdout.trim() : '';
  return text ? `macOS ${text}` : null;
}
