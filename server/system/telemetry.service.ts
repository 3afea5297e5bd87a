/**
 * The telemetry object (spec "Telemetry object") and its history: a sample every few seconds
 * into a ring holding the last 30 minutes, each also handed to a listener (the WebSocket push).
 * Disk numbers are cached for 60 s (spec Limits); GPU, CPU and memory are read fresh (a missing
 * `nvidia-smi` is looked for once a minute).
 */
import type { Logger } from '../logging.js';
import { romeIso } from '../time.js';
import { percent, readCpuPercent, readDisk, readGpu, readMemory, type DiskReading } from './host-metrics.js';
import type { GpuReading, Telemetry, TelemetrySample } from '../contracts/system.contract.js';

export interface TelemetryDeps {
  cgroupRoot: string;
  nvidiaSmi: string;
  /** Children's environment: its PATH decides whether `nvidia-smi` is found. */
  env: NodeJS.ProcessEnv;
  /** The data directory: its volume is the disk reported. */
  dataDir: string;
  sampleMs: number;
  logger: Logger;
  onSample?: (sample: TelemetrySample) => void;
  /** How long a missing `nvidia-smi` is believed missing before it is looked for again. */
  gpuRecheckMs?: number;
}

/** Disk numbers are kept this long (spec Limits). */
const DISK_TTL_MS = 60_000;
/** Thirty minutes of samples (spec: the UI draws the last half hour). */
const HISTORY_WINDOW_MS = 30 * 60_000;

/** Telemetry readings, the disk cache and the sampled history. */
export class TelemetryService {
  private disk: { at: number; value: Promise<DiskReading> } | null = null;
  /** Until when `nvidia-smi` counts as not installed (0: look for it). */
  private gpuAbsentUntil = 0;
  private readonly ring: TelemetrySample[] = [];
  private readonly capacity: number;
  private timer: NodeJS.Timeout | null = null;
  private sampling = false;

  constructor(private readonly deps: TelemetryDeps) {
    this.capacity = Math.max(1, Math.ceil(HISTORY_WINDOW_MS / deps.sampleMs));
  }

  /** The telemetry object now. */
  async current(): Promise<Telemetry> {
    const [gpu, memory, disk] = await Promise.all([this.gpuReading(), readMemory(this.deps.cgroupRoot), this.diskReading()]);
    return {
      gpu,
      cpu_percent: readCpuPercent(),
      ram_total: memory.total,
      ram_used: memory.used,
      ram_percent: percent(memory.used, memory.total),
      disk_total: disk.total,
      disk_used: disk.used,
      disk_percent: percent(disk.used, disk.total),
    };
  }

  /**
   * The GPU now. On a machine without `nvidia-smi` (no NVIDIA GPU, or its driver not installed yet)
   * the program is looked for again only once a minute: starting a child blocks Studio's event
   * loop for a few ms (fork of the whole process), which every 5 s showed in the progress relay's
   * worst latencies. A driver installed meanwhile shows within that minute.
   */
  private async gpuReading(): Promise<GpuReading | null> {
    if (Date.now() < this.gpuAbsentUntil) return null;
    const query = await readGpu(this.deps.nvidiaSmi, this.deps.env);
    this.gpuAbsentUntil = query.found ? 0 : Date.now() + (this.deps.gpuRecheckMs ?? 60_000);
    return query.gpu;
  }

  /** The data volume's numbers, measured at most once a minute. */
  diskReading(): Promise<DiskReading> {
    const now = Date.now();
    if (!this.disk || now - this.disk.at >= DISK_TTL_MS) {
      this.disk = { at: now, value: readDisk(this.deps.dataDir) };
    }
    return this.disk.value;
  }

  /** The samples of the last 30 minutes, oldest first. */
  history(): { interval_ms: number; window_ms: number; samples: TelemetrySample[] } {
    return { interval_ms: this.deps.sampleMs, window_ms: HISTORY_WINDOW_MS, samples: [...this.ring] };
  }

  /** Start sampling (a sample at once, then every `sampleMs`). */
  start(): void {
    if (this.timer) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.deps.sampleMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async sample(): Promise<void> {
    // A slow nvidia-smi must not pile samples up behind it.
    if (this.sampling) return;
    this.sampling = true;
    try {
      const sample: TelemetrySample = { ...(await this.current()), timestamp: romeIso() };
      if (!this.timer) return;
      this.ring.push(sample);
      if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity);
      this.deps.onSample?.(sample);
    } catch (err) {
      this.deps.logger.warn(`telemetry sample failed: ${String(err)}`);
    } finally {
      this.sampling = false;
    }
  }
}
