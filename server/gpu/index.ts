/**
 * The GPU probe's public face: what other capabilities (setup, the engine, the LLM server) use of `gpu/`.
 *
 *   const probe = new GpuProbe({ env: childEnvironment(process.env), nvidiaSmi: config.nvidiaSmi });
 *   const report = await probe.read();   // { backend: 'cuda' | 'rocm' | 'mps' | 'cpu', gpus, cuda_version, rocm_version, … }
 *   const torch = await checkTorch(python, report.backend, env);   // { torch, cuda, hip, mps, works, problem }
 */
export { GpuProbe, probeGpus } from './gpu-probe.js';
export { checkTorch } from './torch-check.js';
export type { GpuReport } from '../contracts/gpu.contract.js';
