import { describe, expect, it } from 'vitest';
import { generationFacts } from '../../../renderer/src/lib/generation-facts.js';
import { workflowsByModel } from '../../../renderer/src/lib/workflow-usage.js';
import { resultAgrees } from '../../../renderer/src/stores/chatbot.store.js';

describe('generationFacts', () => {
  it('labels the hub keys in plain words, in a fixed order, and leaves out what cannot be shown', () => {
    const facts = generationFacts({ cfgScale: 6.5, seed: 12345, Size: '832x1216', steps: 28, resources: [{ name: 'x' }], prompt: 'a fox', sampler: '', 'Model hash': 'abc' });
    expect(facts).toEqual([
      { label: 'Seed', value: '12345' },
      { label: 'Steps', value: '28' },
      { label: 'CFG scale', value: '6.5' },
      { label: 'Size', value: '832x1216' },
    ]);
  });

  it('shows one CLIP skip when both spellings are present', () => {
    expect(generationFacts({ clipSkip: 2, 'Clip skip': 2 })).toEqual([{ label: 'CLIP skip', value: '2' }]);
  });
});

describe('workflowsByModel', () => {
  it('lists, per model file, the workflows that require it, by name', () => {
    const index = workflowsByModel([
      { id: 'b', name: 'SDXL with LoRAs', required_models: ['sdxl.safetensors', 'up.pth'] },
      { id: 'a', name: 'SDXL', required_models: ['sdxl.safetensors', 'sdxl.safetensors'] },
      { id: 'c', name: 'Filter' },
    ]);
    expect(index['sdxl.safetensors']).toEqual([{ id: 'a', name: 'SDXL' }, { id: 'b', name: 'SDXL with LoRAs' }]);
    expect(index['up.pth']).toEqual([{ id: 'b', name: 'SDXL with LoRAs' }]);
    expect(Object.keys(index)).toHaveLength(2);
  });
});

describe('resultAgrees', () => {
  it('keeps a start/stop answer only while the state it describes holds', () => {
    expect(resultAgrees('no token configured', true)).toBe(false);
    expect(resultAgrees('no token configured', false)).toBe(true);
    expect(resultAgrees('started', true)).toBe(true);
    expect(resultAgrees('already running', false)).toBe(false);
    expect(resultAgrees('stopped', false)).toBe(true);
    expect(resultAgrees('not running', true)).toBe(false);
  });
});
