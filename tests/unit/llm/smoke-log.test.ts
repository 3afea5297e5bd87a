/**
 * Reading llama-server's device list and load log: a GPU build that silently used the CPU is
 * told apart from one that offloaded, by the lines llama.cpp prints.
 */
import { describe, expect, it } from 'vitest';
import { offloadFromLog, parseDevices } from '../../../server/llm/runtimes/smoke-test.js';

describe('smoke test log reading', () => {
  it('parses --list-devices', () => {
    expect(parseDevices('Available devices:\n  (none)\n')).toEqual([]);
    expect(parseDevices('ggml_cuda_init: found 1 CUDA devices\nAvailable devices:\n  CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB, 23500 MiB free)\n  Vulkan0: AMD Radeon RX 7900 XTX (RADV NAVI31) (24560 MiB, 24000 MiB free)\n')).toEqual([
      { name: 'CUDA0', description: 'NVIDIA GeForce RTX 4090', totalMib: 24080, freeMib: 23500 },
      { name: 'Vulkan0', description: 'AMD Radeon RX 7900 XTX (RADV NAVI31)', totalMib: 24560, freeMib: 24000 },
    ]);
  });

  it('finds where the layers went', () => {
    expect(offloadFromLog(['load_tensors: offloaded 3/3 layers to GPU', 'load_tensors:        CUDA0 model buffer size =     0.44 MiB'])).toEqual({ gpuLayers: 3, cpuOnlyLine: null });
    expect(offloadFromLog(['load_tensors: offloaded 0/3 layers to GPU'])).toEqual({ gpuLayers: 0, cpuOnlyLine: 'load_tensors: offloaded 0/3 layers to GPU' });
    expect(offloadFromLog(['warning: no usable GPU found, --gpu-layers option will be ignored', 'load_tensors:   CPU_Mapped model buffer size =     0.44 MiB']).cpuOnlyLine).toBe('warning: no usable GPU found, --gpu-layers option will be ignored');
    expect(offloadFromLog(['0.00.027.464 I load_tensors:   CPU_Mapped model buffer size =     0.44 MiB']).cpuOnlyLine).toMatch(/CPU_Mapped/);
    expect(offloadFromLog(['load_tensors:      Vulkan0 model buffer size =     0.44 MiB'])).toEqual({ gpuLayers: 3, cpuOnlyLine: null });
  });
});
