/**
 * How a person's model allow-list reads a built graph (issue 43, point 3): an entry is a file
 * name (bare, with its subfolder, or with the engine folder) or a folder ending in `/` (the
 * engine folder its loader reads from, older folder names too, or a subfolder of the value);
 * input images are not models. And how the quotas count: a zero quota allows nothing.
 */
import { describe, expect, it } from 'vitest';
import { isKind } from '../../../server/domain-error.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';
import { RunLimits } from '../../../server/jobs/run-limits.js';

const GRAPH: ApiGraph = {
  '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl/base.safetensors' } },
  '2': { class_type: 'LoraLoader', inputs: { lora_name: 'styles/ink.safetensors', strength_model: 1 } },
  '3': { class_type: 'UNETLoader', inputs: { unet_name: 'flux.sft' } },
  '4': { class_type: 'LoadImage', inputs: { image: 'photo.pth' } },
};

function limits(allow: { models?: string[]; workflows?: string[] } | null, quotas: Record<string, number> | null = null): ReturnType<RunLimits['of']> {
  return new RunLimits({ jobs: { submittedSince: () => [], activeCountOf: () => 0 }, limitsOf: () => ({ allow, quotas }) }).of('u_1');
}

function refusedModel(models: string[]): string | null {
  try {
    limits({ models }).checkModels(GRAPH);
    return null;
  } catch (err) {
    if (!isKind(err, 'forbidden')) throw err;
    return (err.extra as { model: string }).model;
  }
}

describe('the model allow-list', () => {
  it('matches folders, paths and bare names, and leaves input images alone', () => {
    expect(refusedModel(['checkpoints/sdxl/', 'loras/', 'unet/'])).toBeNull();
    expect(refusedModel(['sdxl/', 'styles/ink.safetensors', 'diffusion_models/flux.sft'])).toBeNull();
    expect(refusedModel(['base.safetensors', 'ink.safetensors', 'flux.sft'])).toBeNull();
    expect(refusedModel(['checkpoints/sd15/', 'loras/', 'flux.sft'])).toBe('sdxl/base.safetensors');
    expect(refusedModel(['checkpoints/', 'loras/other/', 'flux.sft'])).toBe('styles/ink.safetensors');
    // A file entry with a folder names that folder: it does not match the same name elsewhere.
    expect(refusedModel(['checkpoints/', 'loras/', 'checkpoints/flux.sft'])).toBe('flux.sft');
  });

  it('limits only the workflows listed, and nothing when there is no list', () => {
    expect(() => limits({ workflows: ['a'] }).checkWorkflow('b')).toThrow(/"b"/);
    expect(() => limits({ workflows: ['a'] }).checkWorkflow('a')).not.toThrow();
    expect(() => limits(null).checkWorkflow('b')).not.toThrow();
  });

  it('refuses every run under a zero quota', () => {
    expect(() => limits(null, { jobs_per_day: 0 }).checkQuotas()).toThrow(/allows no jobs \(jobs per day is 0\)/);
  });
});

describe('when a person may run again', () => {
  it("says it in the box's own time (one clock with the UI), with the date when it is not today", () => {
    const saved = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      // 2026-11-28 23:30 in New York (04:30 UTC the next day, 05:30 in Rome): the job an hour ago frees the slot at 00:10 tomorrow.
      const now = Date.parse('2026-11-29T04:30:00Z');
      const oneJob = [{ createdMs: now - 20 * 60_000, duration: null }];
      const hourly = new RunLimits({ jobs: { submittedSince: () => oneJob, activeCountOf: () => 0 }, limitsOf: () => ({ allow: null, quotas: { jobs_per_hour: 1 } }), now: () => now }).of('u_1');
      expect(() => hourly.checkQuotas()).toThrow('1 job per hour reached; you can run again at 00:10 on 2026-11-29');
      const sameDay = new RunLimits({ jobs: { submittedSince: () => [{ createdMs: now - 50 * 60_000, duration: null }], activeCountOf: () => 0 }, limitsOf: () => ({ allow: null, quotas: { jobs_per_hour: 1 } }), now: () => now }).of('u_1');
      expect(() => sameDay.checkQuotas()).toThrow('1 job per hour reached; you can run again at 23:40');
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
});
