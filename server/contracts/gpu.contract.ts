/**
 * What Studio found out about the machine's GPUs (`server/gpu/`): the setup page shows it, the
 * engine installer picks a torch build from it, the LLM server a llama.cpp build.
 */
import { z } from 'zod';

const GPU_VENDORS = ['nvidia', 'amd', 'apple', 'intel', 'other'] as const;
/** The compute backend the machine offers: what a torch or llama.cpp build has to be made for. */
const GPU_BACKENDS = ['cuda', 'rocm', 'mps', 'cpu'] as const;
/** The program each reading came from (`none`: no GPU tool answered, so the CPU). */
const GPU_SOURCES = ['nvidia-smi', 'rocm-smi', 'system_profiler', 'none'] as const;

const gpuDeviceSchema = z.object({
  /** The tool's own index (what CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES count). */
  index: z.number().int().nonnegative(),
  vendor: z.enum(GPU_VENDORS),
  model: z.string(),
  /** Dedicated memory in bytes; for unified memory (Apple silicon) the machine's memory; null when unknown. */
  memory_bytes: z.number().nonnegative().nullable(),
  unified_memory: z.boolean(),
  /** The kernel driver's version (NVIDIA driver, amdgpu, macOS). */
  driver_version: z.string().nullable(),
});
export type GpuDevice = z.infer<typeof gpuDeviceSchema>;

export const gpuReportSchema = z.object({
  backend: z.enum(GPU_BACKENDS),
  source: z.enum(GPU_SOURCES),
  gpus: z.array(gpuDeviceSchema),
  /** The newest CUDA version the NVIDIA driver supports ("12.4"), from nvidia-smi. */
  cuda_version: z.string().nullable(),
  /** The ROCm release installed beside rocm-smi ("6.2.0"). */
  rocm_version: z.string().nullable(),
  /** Why a GPU tool that is present said nothing usable (its own words), for the setup page. */
  problems: z.array(z.string()),
  /** When it was read (ISO 8601). */
  probed_at: z.string(),
});
export type GpuReport = z.infer<typeof gpuReportSchema>;
export type GpuBackend = GpuReport['backend'];
export type GpuVendor = GpuDevice['vendor'];
