/**
 * NVIDIA GPUs through `nvidia-smi`: the devices from its stable CSV query (the form NVIDIA
 * documents for scripts), and the newest CUDA version the driver supports from the banner of its
 * plain report — the CSV query has no field for it on the drivers most boxes still run.
 */
import type { GpuDevice } from '../contracts/gpu.contract.js';
import { runCommand } from '../process/run-command.js';
import { toolFailure, type ToolReading } from './tool-reading.js';

const MIB = 1024 * 1024;
/** The fields asked for, in this order (the parser depends on it). */
const NVIDIA_QUERY = '--query-gpu=index,name,memory.total,driver_version';

/** Run `nvidia-smi` twice (devices, then the banner) and read both. */
export async function readNvidia(command: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ToolReading> {
  const list = await runCommand(command, [NVIDIA_QUERY, '--format=csv,noheader,nounits'], { env, timeoutMs });
  if (list.code !== 0) return toolFailure('nvidia-smi', list);
  const devices = parseNvidiaCsv(list.stdout);
  if (devices.length === 0) return { status: 'failed', devices: [], problem: 'nvidia-smi listed no GPU' };
  const banner = await runCommand(command, [], { env, timeoutMs });
  const cuda = banner.code === 0 ? parseCudaVersion(banner.stdout) : null;
  return { status: 'ok', devices, cudaVersion: cuda, problem: cuda ? undefined : 'nvidia-smi did not say which CUDA version its driver supports' };
}

/** Devices from `--query-gpu=index,name,memory.total,driver_version --format=csv,noheader,nounits`. */
function parseNvidiaCsv(text: string): GpuDevice[] {
  const devices: GpuDevice[] = [];
  for (const line of text.split('\n')) {
    const parts = line.split(',').map((part) => part.trim());
    if (parts.length < 4) continue;
    // A model name may hold a comma: the fixed fields are taken from both ends.
    const index = Number(parts[0]);
    const driver = parts[parts.length - 1]!;
    const memory = Number(parts[parts.length - 2]);
    const model = parts.slice(1, -2).join(', ');
    if (!Number.isInteger(index) || index < 0 || !model) continue;
    devices.push({
      index,
      vendor: 'nvidia',
      model,
      // "[N/A]" on boards without dedicated memory (and under some vGPU profiles).
      memory_bytes: Number.isFinite(memory) && memory > 0 ? memory * MIB : null,
      unified_memory: false,
      driver_version: /^\d+(\.\d+)+$/.test(driver) ? driver : null,
    });
  }
  return devices;
}

/** "12.4" from the banner's `CUDA Version: 12.4` (every driver since CUDA 10 prints it), or null. */
function parseCudaVersion(banner: string): string | null {
  return /CUDA Version\s*:\s*(\d+\.\d+)/.exec(banner)?.[1] ?? null;
}
