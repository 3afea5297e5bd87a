/**
 * Asking a Python whether its torch works for this machine's GPU: it imports torch and says what
 * it was built for. A CUDA build on a CPU box, or a CPU build on a GPU box, is "not working for
 * this GPU" with the reason, not an error.
 */
import type { GpuBackend } from '../contracts/gpu.contract.js';
import type { TorchCheck } from '../contracts/setup.contract.js';
import { runCommand } from '../process/run-command.js';

const ASK = [
  'import json, sys',
  'out = {"torch": None, "cuda": False, "hip": None, "mps": False}',
  'try:',
  '    import torch',
  '    out["torch"] = torch.__version__',
  '    out["cuda"] = bool(torch.cuda.is_available())',
  '    out["hip"] = getattr(torch.version, "hip", None)',
  '    mps = getattr(torch.backends, "mps", None)',
  '    out["mps"] = bool(mps and mps.is_available())',
  'except Exception as e:',
  '    out["error"] = type(e).__name__ + ": " + str(e)',
  'sys.stdout.write("\\nSTUDIO-TORCH " + json.dumps(out) + "\\n")',
].join('\n');

/** What `python`'s torch is and whether it fits `backend`; `timeoutMs` covers torch's import (seconds on a cold disk). */
export async function checkTorch(python: string, backend: GpuBackend, env: NodeJS.ProcessEnv, opts: { cwd?: string; timeoutMs?: number } = {}): Promise<TorchCheck> {
  const result = await runCommand(python, ['-c', ASK], { env, cwd: opts.cwd, timeoutMs: opts.timeoutMs ?? 120_000 });
  const line = result.stdout.split('\n').find((l) => l.startsWith('STUDIO-TORCH '));
  if (!line) {
    const why = result.timedOut ? 'did not answer in time' : (result.stderr.trim().split('\n').pop() ?? `exit ${result.code}`);
    return { torch: null, cuda: false, hip: null, mps: false, works: false, problem: `Python ${python} could not be run: ${why}` };
  }
  const raw = JSON.parse(line.slice('STUDIO-TORCH '.length)) as { torch: string | null; cuda: boolean; hip: string | null; mps: boolean; error?: string };
  const check = { torch: raw.torch, cuda: raw.cuda, hip: raw.hip, mps: raw.mps };
  return { ...check, ...verdict(check, backend, raw.error) };
}

function verdict(t: Pick<TorchCheck, 'torch' | 'cuda' | 'hip' | 'mps'>, backend: GpuBackend, error?: string): Pick<TorchCheck, 'works' | 'problem'> {
  if (!t.torch) return { works: false, problem: `torch does not import${error ? ` (${error})` : ''}` };
  if (backend === 'cuda' && !(t.cuda && !t.hip)) return { works: false, problem: `torch ${t.torch} cannot use the NVIDIA GPU (a CPU or ROCm build, or the driver is not reachable)` };
  if (backend === 'rocm' && !(t.cuda && t.hip)) return { works: false, problem: `torch ${t.torch} cannot use the AMD GPU (not a ROCm build)` };
  if (backend === 'mps' && !t.mps) return { works: false, problem: `torch ${t.torch} cannot use the Apple GPU (no MPS)` };
  return { works: true, problem: null };
}
