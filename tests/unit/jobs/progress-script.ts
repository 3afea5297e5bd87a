/** What the progress tracker's tests share: a prompt id, a txt2img graph, a scripted engine with a controllable clock, and the invariants every run keeps. */
import { expect } from 'vitest';
import type { EngineMessage } from '../../../server/engine/engine-messages.js';
import { ProgressTracker } from '../../../server/jobs/progress-tracker.js';
import type { ProgressObject } from '../../../server/contracts/jobs.contract.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';

export const PID = '11111111-2222-4333-8444-555555555555';

/** txt2img: loader, two encoders, latent, sampler, decode, save. */
export function txt2img(): ApiGraph {
  return {
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['4', 1] }, _meta: { title: 'Positive' } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
    '3': { class_type: 'KSampler', inputs: { model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'jobs/x/img' } },
  };
}

/** A scripted engine with a controllable clock, recording a snapshot after each message. */
export class Script {
  time = 1_000_000;
  readonly snaps: ProgressObject[] = [];
  readonly tracker: ProgressTracker;

  constructor(graph: ApiGraph, readonly promptId = PID) {
    this.tracker = new ProgressTracker({ promptId, graph, now: () => this.time });
  }

  send(msg: EngineMessage): ProgressObject {
    this.tracker.handle(msg);
    const snap = this.tracker.snapshot();
    this.snaps.push(snap);
    return snap;
  }

  wait(ms: number): this {
    this.time += ms;
    return this;
  }

  start(cached: string[] = []): void {
    this.send({ type: 'execution_start', data: { prompt_id: this.promptId, timestamp: this.time } });
    this.send({ type: 'execution_cached', data: { nodes: cached, prompt_id: this.promptId, timestamp: this.time } });
  }

  executing(node: string | null, display?: string): ProgressObject {
    return this.send({ type: 'executing', data: { node, display_node: display ?? node, prompt_id: this.promptId } });
  }

  /** A node that takes `ms` and reports no steps. */
  plain(node: string, ms: number): void {
    this.executing(node);
    this.wait(ms);
  }

  /** A sampler: `steps` progress messages `msPerStep` apart. */
  sampler(node: string, steps: number, msPerStep: number): ProgressObject[] {
    this.executing(node);
    const out: ProgressObject[] = [];
    for (let v = 1; v <= steps; v++) {
      this.wait(msPerStep);
      out.push(this.send({ type: 'progress', data: { value: v, max: steps, prompt_id: this.promptId, node } }));
    }
    return out;
  }

  executed(node: string, output: Record<string, unknown>): void {
    this.send({ type: 'executed', data: { node, display_node: node, output, prompt_id: this.promptId } });
  }

  success(): ProgressObject {
    const snap = this.send({ type: 'execution_success', data: { prompt_id: this.promptId, timestamp: this.time } });
    this.executing(null);
    return snap;
  }
}

/** The invariants every run must keep, whatever its shape. */
export function assertInvariants(snaps: ProgressObject[]): void {
  let last = 0;
  for (const s of snaps) {
    expect(s.percent).toBeGreaterThanOrEqual(last);
    if (s.status === 'running' || s.status === 'pending') {
      expect(s.percent).toBeGreaterThanOrEqual(0);
      expect(s.percent).toBeLessThanOrEqual(99);
    }
    if (s.status === 'completed') expect(s.percent).toBe(100);
    expect(s.effective_total).toBeLessThanOrEqual(s.total_nodes - s.cached_count);
    expect(s.nodes_done + s.cached_count).toBeLessThanOrEqual(s.total_nodes);
    if (s.step_rate !== null) expect(s.step_rate).toBeGreaterThan(0);
    if (s.eta_seconds !== null) expect(s.eta_seconds).toBeGreaterThanOrEqual(0);
    last = s.percent;
  }
}
