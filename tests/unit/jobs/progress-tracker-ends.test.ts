/** The progress tracker at a run's edges: errors, interrupts, other prompts' messages, expansion ids, invariants over generated runs, a finish from outside. */
import { describe, expect, it } from 'vitest';
import { ProgressTracker } from '../../../server/jobs/progress-tracker.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';

import { assertInvariants, PID, Script, txt2img } from './progress-script.js';

describe('ProgressTracker: errors, interrupts, foreign messages and invariants', () => {
  it('reports an execution error as [NodeType] message and freezes the percent', () => {
    const s = new Script(txt2img());
    s.start();
    s.plain('4', 400);
    s.sampler('3', 20, 100).slice(0, 5);
    const before = s.tracker.snapshot().percent;
    const err = s.send({
      type: 'execution_error',
      data: {
        prompt_id: PID,
        node_id: '3',
        node_type: 'KSampler',
        exception_message: 'Allocation on device failed',
        exception_type: 'torch.OutOfMemoryError',
        executed: ['4'],
        traceback: [],
        current_inputs: {},
        current_outputs: [],
        timestamp: s.time,
      },
    });
    expect(err.status).toBe('error');
    expect(s.tracker.error).toBe('[KSampler] Allocation on device failed');
    expect(err.percent).toBe(before);
    expect(err.node_type).toBe('KSampler');
    // A late progress message does not resurrect it; `executing null` marks history as ready.
    s.send({ type: 'progress', data: { value: 20, max: 20, prompt_id: PID, node: '3' } });
    s.executing(null);
    expect(s.tracker.snapshot()).toMatchObject({ status: 'error', percent: before });
    expect(s.tracker.historyReady).toBe(true);
    assertInvariants(s.snaps);
  });

  it('reports an interruption', () => {
    const s = new Script(txt2img());
    s.start();
    s.sampler('3', 20, 100);
    const snap = s.send({ type: 'execution_interrupted', data: { prompt_id: PID, node_id: '3', node_type: 'KSampler', executed: [] } });
    expect(snap.status).toBe('interrupted');
    expect(snap.percent).toBeLessThanOrEqual(99);
    expect(snap.eta_seconds).toBeNull();
    s.executing(null);
    expect(s.tracker.status).toBe('interrupted');
  });

  it('ignores other prompts, unknown nodes and the id-less reconnect copy of executing', () => {
    const s = new Script(txt2img());
    s.start();
    s.plain('4', 300);
    const before = s.tracker.snapshot();
    s.send({ type: 'executing', data: { node: '3', prompt_id: 'other-prompt' } });
    s.send({ type: 'progress', data: { value: 5, max: 10, prompt_id: 'other-prompt', node: '3' } });
    s.send({ type: 'executing', data: { node: '3' } });
    s.send({ type: 'executing', data: { node: 'ghost', prompt_id: PID } });
    s.send({ type: 'progress', data: { value: 3, max: 10, prompt_id: PID, node: 'ghost.1' } });
    s.send({ type: 'executed', data: { node: 'ghost', output: { text: ['x'] }, prompt_id: PID } });
    s.send({ type: 'execution_success', data: { prompt_id: 'other-prompt' } });
    s.send({ type: 'other', engineType: 'crystools.monitor', data: { cpu: 3 } });
    s.send({ type: 'status', data: { status: { exec_info: { queue_remaining: 1 } } } });
    const after = s.tracker.snapshot();
    expect(after).toEqual(before);
    expect(after.node_type).toBe('CheckpointLoaderSimple');
  });

  it('attributes expansion and subgraph ids to their graph node', () => {
    const graph: ApiGraph = {
      '406': { class_type: 'SamplerCustomAdvanced', inputs: {} },
      '10:5': { class_type: 'VAEDecode', inputs: {} },
      '12': { class_type: 'SaveImage', inputs: {} },
    };
    const s = new Script(graph);
    s.start();
    s.executing('406');
    s.wait(100);
    const step = s.send({ type: 'progress', data: { value: 2, max: 4, prompt_id: PID, node: '406.0.0.428' } });
    expect(step).toMatchObject({ node_type: 'SamplerCustomAdvanced', step: 2, total_steps: 4 });
    const sub = s.executing('10:5:3');
    expect(sub.node_type).toBe('VAEDecode');
    s.wait(100);
    const byDisplay = s.executing('999', '12');
    expect(byDisplay.node_type).toBe('SaveImage');
    expect(byDisplay.nodes_done).toBe(2);
    assertInvariants(s.snaps);
  });

  it('keeps the invariants over many generated runs', () => {
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 200; run++) {
      const count = 2 + rand(12);
      const graph: ApiGraph = {};
      for (let i = 0; i < count; i++) graph[String(i + 1)] = { class_type: rand(5) === 0 ? 'PrimitiveInt' : `Node${i}`, inputs: {} };
      const ids = Object.keys(graph);
      const s = new Script(graph);
      const cached = ids.filter(() => rand(4) === 0);
      s.start(cached);
      for (const id of ids) {
        if (cached.includes(id)) continue;
        if (rand(10) === 0) continue; // not on the output path: never runs
        if (rand(3) === 0) s.sampler(id, 1 + rand(30), 1 + rand(400));
        else s.plain(id, rand(200));
        if (rand(5) === 0) s.send({ type: 'executing', data: { node: `${id}.0.${rand(9)}`, prompt_id: PID } });
        if (rand(3) === 0) {
          const state = { value: 1, max: 1, state: 'finished' as const, node_id: id, prompt_id: PID };
          s.send({ type: 'progress_state', data: { prompt_id: PID, nodes: { [id]: state } } });
        }
      }
      const outcome = rand(6);
      if (outcome === 0) {
        s.send({ type: 'execution_interrupted', data: { prompt_id: PID } });
        s.executing(null);
        expect(s.tracker.status).toBe('interrupted');
      } else {
        expect(s.tracker.snapshot().percent).toBeLessThanOrEqual(99);
        expect(s.success().percent).toBe(100);
      }
      assertInvariants(s.snaps);
    }
  });

  it('can be finished from outside after a reconciliation through history', () => {
    const s = new Script(txt2img());
    s.start();
    s.sampler('3', 4, 100);
    s.tracker.finish('completed');
    expect(s.tracker.snapshot()).toMatchObject({ status: 'completed', percent: 100 });
    const t = new ProgressTracker({ promptId: PID, graph: txt2img() });
    t.finish('error', '[KSampler] boom');
    expect(t.status).toBe('error');
    expect(t.error).toBe('[KSampler] boom');
  });
});
