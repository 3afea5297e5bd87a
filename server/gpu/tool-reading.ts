/** One GPU tool's answer, and how a tool that could not answer is described. */
import type { GpuDevice } from '../contracts/gpu.contract.js';
import type { RunResult } from '../process/run-command.js';

export interface ToolReading {
  /** `absent`: the program is not on this machine (not a problem: most have one vendor's tools at most). */
  status: 'ok' | 'absent' | 'failed';
  devices: GpuDevice[];
  cudaVersion?: string | null;
  rocmVersion?: string | null;
  /** What went wrong, in the tool's own words where it gave any. */
  problem?: string;
}

/** The reading of a tool that did not succeed: absent when it could not be started, else its first words. */
export function toolFailure(tool: string, result: RunResult): ToolReading {
  if (result.code === null && !result.timedOut && /ENOENT|EACCES/.test(result.stderr)) return { status: 'absent', devices: [] };
  if (result.timedOut) return { status: 'failed', devices: [], problem: `${tool} did not answer in time` };
  // nvidia-smi explains itself on stdout ("NVIDIA-SMI has failed because it couldn't communicate
  // with the NVIDIA driver…"), rocm-smi on either stream.
  const said = firstLine(result.stderr) ?? firstLine(result.stdout);
  return { status: 'failed', devices: [], problem: `${tool} failed (exit ${result.code ?? 'signal'})${said ? `: ${said}` : ''}` };
}

function firstLine(text: string): string | null {
  const line = text.split('\n').map((l) => l.trim()).find(Boolean);
  return line ? line.slice(0, 300) : null;
}
