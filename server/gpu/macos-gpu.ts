/**
 * The GPU of a Mac through macOS's own report (`system_profiler SPDisplaysDataType -json`).
 * Apple silicon shares the machine's memory with its GPU, so that is the memory reported; an
 * Intel Mac's discrete card reports its own VRAM ("8 GB"). The driver is the macOS release.
 */
import os from 'node:os';
import type { GpuDevice, GpuVendor } from '../contracts/gpu.contract.js';
import { runCommand } from '../process/run-command.js';
import { toolFailure, type ToolReading } from './tool-reading.js';

const SYSTEM_PROFILER_ARGS = ['SPDisplaysDataType', '-json'];

/** Run system_profiler and read its displays report. */
export async function readMacGpus(command: string, env: NodeJS.ProcessEnv, timeoutMs: number, macosVersion: string | null): Promise<ToolReading> {
  const result = await runCommand(command, SYSTEM_PROFILER_ARGS, { env, timeoutMs });
  if (result.code !== 0) return toolFailure('system_profiler', result);
  const devices = parseSystemProfiler(result.stdout, os.totalmem(), macosVersion);
  return devices.length > 0 ? { status: 'ok', devices } : { status: 'failed', devices: [], problem: 'system_profiler listed no GPU' };
}

/** Devices from the `SPDisplaysDataType` JSON report; `unifiedBytes` is the machine's memory. */
function parseSystemProfiler(text: string, unifiedBytes: number, macosVersion: string | null): GpuDevice[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  const entries = (data as { SPDisplaysDataType?: unknown } | null)?.SPDisplaysDataType;
  if (!Array.isArray(entries)) return [];
  const devices: GpuDevice[] = [];
  for (const entry of entries as Array<Record<string, unknown>>) {
    const model = str(entry.sppci_model) ?? str(entry._name);
    if (!model) continue;
    const vendor = vendorOf(str(entry.spdisplays_vendor) ?? '', model);
    const own = sizeBytes(str(entry.spdisplays_vram) ?? str(entry['spdisplays_vram_shared']));
    const unified = vendor === 'apple';
    devices.push({
      index: devices.length,
      vendor,
      model,
      memory_bytes: unified ? unifiedBytes : own,
      unified_memory: unified,
      driver_version: macosVersion,
    });
  }
  return devices;
}

function vendorOf(token: string, model: string): GpuVendor {
  const text = `${token} ${model}`.toLowerCase();
  if (text.includes('apple')) return 'apple';
  if (text.includes('amd') || text.includes('ati') || text.includes('radeon')) return 'amd';
  if (text.includes('intel')) return 'intel';
  if (text.includes('nvidia') || text.includes('geforce')) return 'nvidia';
  return 'other';
}

/** "1536 MB" / "8 GB" → bytes. */
function sizeBytes(text: string | null): number | null {
  const match = text ? /^(\d+(?:\.\d+)?)\s*(MB|GB)$/i.exec(text.trim()) : null;
  if (!match) return null;
  return Number(match[1]) * (match[2]!.toUpperCase() === 'GB' ? 1024 ** 3 : 1024 ** 2);
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}
