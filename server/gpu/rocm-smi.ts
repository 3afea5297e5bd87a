/**
 * AMD GPUs through `rocm-smi --json`: product names, VRAM and the amdgpu driver version in one
 * call. rocm-smi does not print the ROCm release itself; that is the `.info/version` file of the
 * ROCm tree it belongs to (`/opt/rocm-6.2.0/bin/rocm-smi` → `/opt/rocm-6.2.0/.info/version`).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GpuDevice } from '../contracts/gpu.contract.js';
import { findExecutable } from '../process/find-executable.js';
import { runCommand } from '../process/run-command.js';
import { toolFailure, type ToolReading } from './tool-reading.js';

const ROCM_ARGS = ['--showproductname', '--showmeminfo', 'vram', '--showdriverversion', '--json'];

/** Run rocm-smi, read its JSON and find the ROCm release beside it. */
export async function readRocm(command: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ToolReading> {
  const result = await runCommand(command, ROCM_ARGS, { env, timeoutMs });
  if (result.code !== 0) return toolFailure('rocm-smi', result);
  const devices = parseRocmJson(result.stdout);
  if (devices.length === 0) return { status: 'failed', devices: [], problem: 'rocm-smi listed no AMD GPU' };
  const rocmVersion = await rocmVersionBeside(command, env);
  return { status: 'ok', devices, rocmVersion, problem: rocmVersion ? undefined : 'the ROCm release beside rocm-smi is unknown (no .info/version)' };
}

/** Devices from rocm-smi's `--json` answer: `{"card0": {...}, "system": {"Driver version": ...}}`. */
function parseRocmJson(text: string): GpuDevice[] {
  // Some releases print warnings before the JSON (e.g. about an unsupported card).
  const start = text.indexOf('{');
  if (start < 0) return [];
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start));
  } catch {
    return [];
  }
  if (!isRecord(data)) return [];
  const system = isRecord(data.system) ? data.system : {};
  const driver = field(system, 'driver version');
  const devices: GpuDevice[] = [];
  for (const [key, card] of Object.entries(data)) {
    const index = /^card(\d+)$/.exec(key)?.[1];
    if (index === undefined || !isRecord(card)) continue;
    const vram = Number(field(card, 'vram total memory (b)'));
    devices.push({
      index: Number(index),
      vendor: 'amd',
      // "Card Series" (ROCm 6) or "Card series" (ROCm 5); the marketing name, else the chip.
      model: field(card, 'card series') ?? field(card, 'card model') ?? field(card, 'gfx version') ?? `AMD GPU ${index}`,
      memory_bytes: Number.isFinite(vram) && vram > 0 ? vram : null,
      unified_memory: false,
      driver_version: driver ?? field(card, 'driver version'),
    });
  }
  return devices.sort((a, b) => a.index - b.index);
}

/** The ROCm release of the tree holding `command` (or ROCM_PATH, or /opt/rocm), or null. */
async function rocmVersionBeside(command: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const found = await findExecutable(command, env);
  const roots: string[] = [];
  if (found) {
    roots.push(path.dirname(path.dirname(found)));
    const real = await fs.realpath(found).catch(() => found);
    // bin/rocm-smi is a link to libexec/rocm_smi/rocm_smi.py.
    roots.push(path.dirname(path.dirname(real)), path.dirname(path.dirname(path.dirname(real))));
  }
  if (env.ROCM_PATH) roots.push(env.ROCM_PATH);
  roots.push('/opt/rocm');
  for (const root of roots) {
    const text = await fs.readFile(path.join(root, '.info', 'version'), 'utf8').catch(() => null);
    const version = text ? /^\s*(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] : undefined;
    if (version) return version;
  }
  return null;
}

function field(record: Record<string, unknown>, name: string): string | null {
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() === name && typeof value === 'string' && value.trim() && value.trim() !== 'N/A') return value.trim();
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
