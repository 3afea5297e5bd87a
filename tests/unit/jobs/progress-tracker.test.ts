/** The progress tracker through a run: percent, titles, step rate and ETA, cached and primitive nodes, runs without steps. */
import { describe, expect, it } from 'vitest';
import { ProgressTracker, RollingRate } from '../../../server/jobs/progress-tracker.js';
import type { ProgressObject } from '../../../server/contracts/jobs.contract.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';

import { assertInvariants, PID, Script, txt2img } from './progress-script.js';

function fullRun(script: Script, cached: string[] = []): { samplerSnaps: ProgressObject[] } {
  script.start(cached);
  for (const [node, ms] of [['4', 800], ['6', 20], ['7', 15], ['5', 5]] as const) {
    if (!cached.includes(node)) script.plain(node, ms);
  }
  const samplerSnaps = script.sampler('3', 20, 1000);
  script.plain('8', 600);
  script.plain('9', 120);
  script.executed('9', { images: [{ filename: 'img_00001_.png', subfolder: 'jobs/x', type: 'output' }] });
  return { samplerSnaps };
}

describe('ProgressTracker: a run', () => {
  it('starts pending with the graph size and no estimate', () => {
    const s = new Script(txt2img());
    const snap = s.tracker.snapshot();
    expect(snap).toMatchObject({ status: 'pending', percent: 0, total_nodes: 7, effective_total: 7, cached_count: 0, nodes_done: 0 });
    expect(snap.eta_seconds).toBeNull();
    expect(snap.step_rate).toBeNull();
    expect(snap.node_title).toBeNull();
  });

  it('runs a txt2img prompt to 100 with monotonic percent, instant nodes excluded', () => {
    const s = new Script(txt2img());
    const { samplerSnaps } = fullRun(s);
    const beforeEnd = s.tracker.snapshot();
    expect(beforeEnd.status).toBe('running');
    expect(beforeEnd.percent).toBeLessThanOrEqual(99);
    // The two encoders and the empty latent finished in < 50 ms without steps: not work.
    expect(beforeEnd.effective_total).toBe(4);
    expect(beforeEnd.node_title).toBe('SaveImage');
    expect(beforeEnd.node_outputs['9']).toEqual({ images: [{ filename: 'img_00001_.png', subfolder: 'jobs/x', type: 'output' }] });

    const done = s.success();
    expect(done.status).toBe('completed');
    expect(done.percent).toBe(100);
    expect(done.eta_seconds).toBe(0);
    expect(done.nodes_done).toBe(7);
    expect(s.tracker.historyReady).toBe(true);
    assertInvariants(s.snaps);

    // Percent rises through the sampler, weighted by its steps.
    const percents = samplerSnaps.map((p) => p.percent);
    expect(percents[percents.length - 1]!).toBeGreaterThan(percents[0]!);
    expect(samplerSnaps[9]).toMatchObject({ step: 10, total_steps: 20, node_type: 'KSampler', node_title: 'KSampler' });
  });

  it('shows the _meta title and caller-given titles', () => {
    const graph = txt2img();
    const tracker = new ProgressTracker({ promptId: PID, graph, nodeTitles: { '3': 'Render' } });
    tracker.handle({ type: 'executing', data: { node: '6', prompt_id: PID } });
    expect(tracker.snapshot()).toMatchObject({ node_title: 'Positive', node_type: 'CLIPTextEncode', status: 'running' });
    tracker.handle({ type: 'executing', data: { node: '3', prompt_id: PID } });
    expect(tracker.snapshot()).toMatchObject({ node_title: 'Render', node_type: 'KSampler' });
  });

  it('reports a rolling step rate and an ETA that falls as steps advance', () => {
    const s = new Script(txt2img());
    s.start();
    s.plain('4', 800);
    const snaps = s.sampler('3', 20, 500);
    expect(snaps[0]!.step_rate).toBeNull();
    expect(snaps[0]!.eta_seconds).not.toBeNull(); // the loader's duration is a basis already
    for (const snap of snaps.slice(1)) expect(snap.step_rate).toBeCloseTo(2, 5);
    const etas = snaps.slice(1).map((p) => p.eta_seconds!);
    for (let i = 1; i < etas.length; i++) expect(etas[i]!).toBeLessThanOrEqual(etas[i - 1]!);
    expect(etas[etas.length - 1]!).toBeLessThan(etas[0]!);
    assertInvariants(s.snaps);
  });

  it('rolls the rate over the last seconds only (a second, faster sampler)', () => {
    const graph: ApiGraph = {
      ...txt2img(),
      '10': { class_type: 'KSamplerAdvanced', inputs: { latent_image: ['3', 0] } },
    };
    const s = new Script(graph);
    s.start();
    s.sampler('3', 20, 1000); // 1 step/s for 20 s
    const fast = s.sampler('10', 40, 250); // 4 steps/s for 10 s
    // The whole-run average would be 60 steps / 30 s = 2; the rolling window sees only the fast part.
    expect(fast[fast.length - 1]!.step_rate).toBeCloseTo(4, 5);
    assertInvariants(s.snaps);
  });

  it('keeps the last rate through a stall longer than the window', () => {
    const rate = new RollingRate(5000);
    rate.add(0, 1);
    rate.add(1000, 1);
    rate.add(60_000, 1);
    expect(rate.rate()).toBeCloseTo(1 / 59, 5);
    expect(new RollingRate().rate()).toBeNull();
  });

  it('excludes cached nodes from the effective total', () => {
    const s = new Script(txt2img());
    s.start(['4', '6', '7', '5']);
    const afterCache = s.tracker.snapshot();
    expect(afterCache).toMatchObject({ cached_count: 4, effective_total: 3, total_nodes: 7, percent: 0 });
    s.sampler('3', 10, 200);
    expect(s.tracker.snapshot().percent).toBe(33);
    s.plain('8', 300);
    s.plain('9', 100);
    const end = s.success();
    expect(end).toMatchObject({ percent: 100, cached_count: 4, nodes_done: 3 });
    assertInvariants(s.snaps);
  });

  it('completes a fully cached re-run with the replayed outputs', () => {
    const s = new Script(txt2img());
    s.start(Object.keys(txt2img()));
    s.executed('9', { images: [{ filename: 'old_00001_.png', subfolder: '', type: 'output' }] });
    expect(s.tracker.snapshot()).toMatchObject({ status: 'running', percent: 0, effective_total: 0, cached_count: 7 });
    const end = s.success();
    expect(end).toMatchObject({ status: 'completed', percent: 100 });
    expect(Object.keys(end.node_outputs)).toEqual(['9']);
  });

  it('excludes primitive nodes from the start', () => {
    const graph: ApiGraph = {
      '1': { class_type: 'PrimitiveInt', inputs: { value: 5 } },
      '2': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: ['1', 0], color: 0 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
    };
    const s = new Script(graph);
    s.start();
    expect(s.tracker.snapshot().effective_total).toBe(2);
    s.plain('1', 500); // slow by accident: it still contributed nothing
    s.plain('2', 500);
    s.plain('3', 500);
    s.success();
    assertInvariants(s.snaps);
  });

  it('moves with nodes_done / effective_total when no node reports steps (a real no-weights graph)', () => {
    const s = new Script({
      '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } },
      '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'lanczos', width: 4096, height: 4096, crop: 'disabled' } },
      '3': { class_type: 'ImageBlur', inputs: { image: ['2', 0], blur_radius: 31, sigma: 10 } },
      '4': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'x' } },
    });
    s.start();
    s.plain('1', 400);
    s.plain('2', 900);
    const third = s.executing('3');
    expect(third.nodes_done).toBe(2);
    expect(third.percent).toBe(Math.floor((third.nodes_done * 100) / third.effective_total));
    expect(third.percent).toBeGreaterThan(0);
    s.wait(900);
    const fourth = s.executing('4');
    expect(fourth.percent).toBeGreaterThan(third.percent);
    s.wait(300);
    expect(s.success().percent).toBe(100);
    assertInvariants(s.snaps);
  });

  it('uses progress_state to see nodes finish', () => {
    const s = new Script(txt2img());
    s.start();
    s.plain('4', 400);
    s.send({
      type: 'progress_state',
      data: { prompt_id: PID, nodes: { '4': { value: 1, max: 1, state: 'finished', node_id: '4', prompt_id: PID } } },
    });
    const snap = s.tracker.snapshot();
    expect(snap.nodes_done).toBe(1);
    expect(snap.percent).toBe(14); // 1 of 7
    assertInvariants(s.snaps);
  });
});
