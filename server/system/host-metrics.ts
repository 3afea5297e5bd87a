/**
 * Raw readings of the machine: the GPU through `nvidia-smi`, CPU load, memory from the
 * container's cgroup (v2, then v1, else the host) and the data volume. Each returns null or
 * zeros when it cannot tell, never throws: a dashboard must not fail because a GPU is absent.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from '../process/find-executable.js';
import { runCommand } from '../process/run-command.js';
import type { GpuReading } from '../contracts/system.contract.js';
import { volumeSpace, type VolumeSpace } from '../free-space.js';

export interface MemoryReading {
  total: number;
  used: number;
  /** Where the numbers came from, for the logs and tests. */
  source: 'cgroup2' | 'cgroup1' | 'host';
}

export type DiskReading = VolumeSpace;

const MIB = 1024 * 1024;
/** cgroup v1 reports "no limit" as a huge page-aligned number; anything above this is unlimited. */
const UNLIMITED = 2 ** 60;

/** What one `nvidia-smi` query gave: the first GPU it lists, and whether the program was there at all. */
interface GpuQuery {
  /** Null when the program is absent, fails or says nothing. */
  gpu: GpuReading | null;
  /** False when the program could not be started (not installed, not on PATH). */
  found: boolean;
}

/**
 * Ask `nvidia-smi` for the first GPU. The program is looked up on PATH first: starting a child
 * forks the whole process, ~2-3 ms of blocked event loop (profiled: the first sample at start),
 * wasted on a machine where it is not installed.
 */
export async function readGpu(command: string, env: NodeJS.ProcessEnv): Promise<GpuQuery> {
  const program = await findExecutable(command, env);
  if (!program) return { gpu: null, found: false };
  const result = await runCommand(
    program,
    ['--query-gpu=name,memory.total,memory.used,utilization.gpu,temperature.gpu', '--format=csv,noheader,nounits'],
    { env, timeoutMs: 5_000 },
  );
  // runCommand reports a program it could not start with no exit code (and the spawn error).
  if (result.code === null && !result.timedOut) return { gpu: null, found: false };
  return { gpu: result.code === 0 ? parseGpuLine(result.stdout) : null, found: true };
}

function parseGpuLine(stdout: string): GpuReading | null {
  const line = stdout.split('\n').find((l) => l.trim());
  if (!line) return null;
  const [name, total, used, util, temp] = line.split(',').map((part) => part.trim());
  const totalMib = Number(total);
  const usedMib = Number(used);
  if (!name || !Number.isFinite(totalMib) || !Number.isFinite(usedMib)) return null;
  return {
    name,
    vram_total: totalMib * MIB,
    vram_used: usedMib * MIB,
    vram_percent: percent(usedMib, totalMib),
    // "[N/A]" on some boards: report 0 rather than dropping the whole GPU.
    util_percent: Number(util) || 0,
    temp_c: Number(temp) || 0,
  };
}

/** Load average (1 min) over the CPU count, as a percentage capped at 100. */
export function readCpuPercent(): number {
  const cpus = Math.max(1, os.availableParallelism());
  return Math.min(100, round1((os.loadavg()[0]! / cpus) * 100));
}

/** Memory in use and the limit: the cgroup's when it sets one below the host's, else the host's. */
export async function readMemory(cgroupRoot: string): Promise<MemoryReading> {
  const hostTotal = os.totalmem();
  const v2 = await readNumbers(path.join(cgroupRoot, 'memory.max'), path.join(cgroupRoot, 'memory.current'));
  if (v2 && v2.limit < hostTotal) {
    const inactive = await statField(path.join(cgroupRoot, 'memory.stat'), 'inactive_file');
    return { total: v2.limit, used: Math.max(0, v2.usage - inactive), source: 'cgroup2' };
  }
  const v1dir = path.join(cgroupRoot, 'memory');
  const v1 = await readNumbers(path.join(v1dir, 'memory.limit_in_bytes'), path.join(v1dir, 'memory.usage_in_bytes'));
  if (v1 && v1.limit < Math.min(UNLIMITED, hostTotal)) {
    const inactive = await statField(path.join(v1dir, 'memory.stat'), 'total_inactive_file');
    return { total: v1.limit, used: Math.max(0, v1.usage - inactive), source: 'cgroup1' };
  }
  return { total: hostTotal, used: hostTotal - os.freemem(), source: 'host' };
}

/** Size and use of the volume holding `dir`; zeros when the platform cannot say. */
export async function readDisk(dir: string): Promise<DiskReading> {
  return (await volumeSpace(dir)) ?? { total: 0, used: 0, free: 0 };
}

/** `part / whole` as a percentage with one decimal (0 when `whole` is 0). */
export function percent(part: number, whole: number): number {
  return whole > 0 ? round1((part / whole) * 100) : 0;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

async function readNumbers(limitFile: string, usageFile: string): Promise<{ limit: number; usage: number } | null> {
  try {
    const [limitText, usageText] = await Promise.all([fs.readFile(limitFile, 'utf8'), fs.readFile(usageFile, 'utf8')]);
    const limit = limitText.trim() === 'max' ? Number.POSITIVE_INFINITY : Number(limitText.trim());
    const usage = Number(usageText.trim());
    if (!Number.isFinite(usage) || Number.isNaN(limit)) return null;
    return { limit, usage };
  } catch {
    return null;
  }
}

async function statField(file: string, field: string): Promise<number> {
  try {
    const line = (await fs.readFile(file, 'utf8')).split('\n').find((l) => l.startsWith(`${field} `));
    return Number(line?.split(' ')[1]) || 0;
  } catch {
    return 0;
  }
}
