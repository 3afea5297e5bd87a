/**
 * The check a runtime passes before it may become active: `--version` answers, `--list-devices`
 * names the devices it sees, and a tiny model (`tiny-gguf.ts`) loads and answers `/health`. For a
 * GPU build the load must really put layers on a GPU: a build that finds no usable GPU quietly
 * runs on the CPU (Ollama #17841, #15956 are users surprised by exactly that), so the log line
 * that shows it refuses the build instead.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { probeHealth } from '../../process/health-probe.js';
import { signalGroup, spawnInGroup } from '../../process/process-group.js';
import { runCommand } from '../../process/run-command.js';
import { sleep } from '../../process/sleep.js';
import { TINY_MODEL_LAYERS, writeTinyGguf } from './tiny-gguf.js';
import { freePort } from '../../process/free-port.js';

export interface SmokeDevice {
  name: string;
  description: string;
  /** Free memory in MiB when the build reports it. */
  freeMib: number | null;
  totalMib: number | null;
}

export interface SmokeResult {
  ok: boolean;
  /** `llama-server --version`'s version line. */
  version: string | null;
  devices: SmokeDevice[];
  /** Layers the tiny model put on a GPU (null when the log does not say). */
  gpuLayers: number | null;
  /** Why it failed, with the log line that shows it. */
  error: string | null;
  /** The load's last log lines, for the page. */
  log: string[];
}

export interface SmokeOptions {
  binary: string;
  env: NodeJS.ProcessEnv;
  /** True for CUDA/Vulkan/ROCm/Metal builds: the layers must go to a GPU. */
  expectGpu: boolean;
  /** Where the tiny model is written. */
  workDir: string;
  /** How long the tiny model may take to load. */
  loadTimeoutMs?: number;
}

/** Parse `--list-devices` output ("  CUDA0: NVIDIA RTX 4090 (24080 MiB, 23500 MiB free)"). */
export function parseDevices(output: string): SmokeDevice[] {
  const devices: SmokeDevice[] = [];
  const start = output.indexOf('Available devices:');
  if (start === -1) return devices;
  for (const line of output.slice(start).split('\n').slice(1)) {
    const m = /^\s+([A-Za-z][\w-]*\d*):\s+(.+?)\s*(?:\((\d+) MiB, (\d+) MiB free\))?\s*$/.exec(line);
    if (!m) continue;
    devices.push({ name: m[1]!, description: m[2]!, totalMib: m[3] ? Number(m[3]) : null, freeMib: m[4] ? Number(m[4]) : null });
  }
  return devices;
}

/**
 * Where the tiny model's layers went, from the load log: `{gpuLayers, cpuOnly}`, with the line
 * that says so. "offloaded N/M layers to GPU" is llama.cpp's own count; "no usable GPU found" and
 * model buffers only on the CPU mean nothing went to a GPU.
 */
export function offloadFromLog(lines: readonly string[]): { gpuLayers: number | null; cpuOnlyLine: string | null } {
  let gpuLayers: number | null = null;
  let cpuOnlyLine: string | null = null;
  let gpuBuffer = false;
  let cpuBufferLine: string | null = null;
  for (const line of lines) {
    const off = /offloaded (\d+)\/(\d+) layers to GPU/.exec(line);
    if (off) {
      gpuLayers = Number(off[1]);
      if (gpuLayers === 0) cpuOnlyLine = line.trim();
    }
    if (/no usable GPU found/i.test(line)) cpuOnlyLine ??= line.trim();
    const buffer = /(\S+) model buffer size/.exec(line);
    if (buffer) {
      if (/^CPU/i.test(buffer[1]!)) cpuBufferLine ??= line.trim();
      else gpuBuffer = true;
    }
  }
  if (gpuLayers === null && !gpuBuffer && cpuBufferLine) cpuOnlyLine ??= cpuBufferLine;
  if (gpuLayers === null && gpuBuffer) gpuLayers = TINY_MODEL_LAYERS;
  return { gpuLayers, cpuOnlyLine };
}


/** Run the three checks; never throws (a failure is `ok: false` with the reason). */
export async function smokeTest(o: SmokeOptions): Promise<SmokeResult> {
  const result: SmokeResult = { ok: false, version: null, devices: [], gpuLayers: null, error: null, log: [] };
  const version = await runCommand(o.binary, ['--version'], { env: o.env, timeoutMs: 30_000 });
  const versionText = `${version.stdout}\n${version.stderr}`;
  result.version = /version:\s*(.+)/.exec(versionText)?.[1]?.trim() ?? null;
  if (version.code !== 0 || !result.version) {
    result.error = `--version failed (exit ${version.code ?? 'none'}): ${versionText.trim().split('\n').slice(-3).join(' | ')}`;
    return result;
  }
  const listed = await runCommand(o.binary, ['--list-devices'], { env: o.env, timeoutMs: 30_000 });
  const text = `${listed.stdout}\n${listed.stderr}`;
  result.devices = parseDevices(text);
  const gpus = result.devices.filter((d) => !/^CPU/i.test(d.name));
  if (o.expectGpu && gpus.length === 0) {
    const at = text.indexOf('Available devices:');
    const shown = at === -1 ? text.trim().split('\n').slice(-2) : text.slice(at).split('\n').slice(0, 2);
    result.error = `refused as a GPU build: --list-devices shows no GPU ("${shown.map((l) => l.trim()).join(' ')}")`;
    result.log = text.trim().split('\n').slice(-10);
    return result;
  }
  return loadTinyModel(o, result);
}

async function loadTinyModel(o: SmokeOptions, result: SmokeResult): Promise<SmokeResult> {
  await fsp.mkdir(o.workDir, { recursive: true });
  const model = path.join(o.workDir, 'smoke-test.gguf');
  await writeTinyGguf(model);
  const port = await freePort();
  const args = ['-m', model, '--host', '127.0.0.1', '--port', String(port), '-ngl', '99', '-c', '256', '-t', '2', '-lv', '4'];
  const child = spawnInGroup(o.binary, args, { env: o.env });
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 400) lines.splice(0, lines.length - 400);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  child.on('error', () => (exited = null));
  const deadline = Date.now() + (o.loadTimeoutMs ?? 120_000);
  let healthy = false;
  try {
    while (!healthy && exited === undefined && Date.now() < deadline) {
      healthy = (await probeHealth(`http://127.0.0.1:${port}/health`)).ok;
      if (!healthy) await sleep(200);
    }
  } finally {
    if (child.pid && exited === undefined) signalGroup(child.pid, 'SIGKILL');
    await fsp.rm(model, { force: true });
  }
  result.log = lines.slice(-12);
  if (!healthy) {
    result.error = exited !== undefined ? `the tiny test model did not load (exit ${exited ?? 'error'}): ${lines.slice(-3).join(' | ')}` : 'the tiny test model did not load in time';
    return result;
  }
  const { gpuLayers, cpuOnlyLine } = offloadFromLog(lines);
  result.gpuLayers = gpuLayers;
  if (o.expectGpu && (cpuOnlyLine || !gpuLayers)) {
    result.error = `refused as a GPU build: the test model ran on the CPU ("${cpuOnlyLine ?? 'no layer was offloaded to a GPU'}")`;
    return result;
  }
  result.ok = true;
  return result;
}
