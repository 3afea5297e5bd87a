import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../../server/contracts/workflows.contract.js';

const base = {
  id: 'demo',
  name: 'Demo',
  type: 'static',
  category: 'image',
  description: 'd',
  author: 'a',
  version: 1,
  date: '2026-11-22 10:00',
  inputs: [{ id: 'seed', type: 'seed', label: 'Seed', node_id: 3, field: 'seed' }],
  outputs: [{ type: 'image', format: 'png' }],
  required_models: ['m.safetensors'],
  required_nodes: [],
};

describe('manifest schema', () => {
  it('accepts a spec manifest and defaults a seed to -1', () => {
    const manifest = parseManifest(base);
    expect(manifest.inputs[0]).toMatchObject({ id: 'seed', type: 'seed', default: -1, node_id: 3, field: 'seed' });
  });

  it('defaults optional list fields to empty', () => {
    const manifest = parseManifest({ id: 'x', name: 'X', type: 'static', version: 0, date: '2026-01-01 00:00' });
    expect(manifest).toMatchObject({ inputs: [], outputs: [], required_models: [], required_nodes: [], category: '' });
  });

  it.each([
    ['an unknown input type', { inputs: [{ id: 'a', type: 'colour' }] }, 'inputs.0'],
    ['a bad date', { date: '22/11/2026' }, 'date'],
    ['a non-integer node id', { inputs: [{ id: 'a', type: 'int', node_id: 1.5, field: 'x' }] }, 'inputs.0.node_id'],
    ['node_id without field', { inputs: [{ id: 'a', type: 'int', node_id: 1 }] }, 'node_id and field go together'],
    ['duplicate input ids', { inputs: [{ id: 'a', type: 'text' }, { id: 'a', type: 'int' }] }, 'duplicate input id'],
    ['a select default outside its options', { inputs: [{ id: 'a', type: 'select', options: ['x'], default: 'y' }] }, 'not one of the options'],
    ['loras in a static workflow', { inputs: [{ id: 'l', type: 'loras' }] }, 'dynamic workflow'],
    ['block on a static input', { inputs: [{ id: 'a', type: 'int', block: 'b', node_id: 1, field: 'x' }] }, 'dynamic workflows only'],
    ['an input id that is not a placeholder name', { inputs: [{ id: 'bad id', type: 'text' }] }, 'inputs.0.id'],
    ['an id with a slash', { id: '../evil' }, 'id'],
  ])('rejects %s', (_what, patch, message) => {
    expect(() => parseManifest({ ...base, ...patch })).toThrow(message);
  });

  it('needs a block on mapped inputs of dynamic workflows', () => {
    const dynamic = { ...base, type: 'dynamic' };
    expect(() => parseManifest(dynamic)).toThrow('node_id needs a block');
    const ok = parseManifest({ ...dynamic, inputs: [{ id: 'seed', type: 'seed', block: 'sampler', node_id: 4, field: 'seed' }] });
    expect(ok.inputs[0]).toMatchObject({ block: 'sampler', node_id: 4 });
  });

  it('accepts the Studio input types with their fields', () => {
    const manifest = parseManifest({
      ...base,
      type: 'dynamic',
      inputs: [
        { id: 'cfg', type: 'float', min: 1, max: 20, default: 7 },
        { id: 'hires', type: 'bool', default: false },
        { id: 'sampler', type: 'select', options: ['euler', 'uni_pc'], default: 'euler' },
        { id: 'loras', type: 'loras', max: 4, default: [{ name: 'a.safetensors' }] },
      ],
    });
    expect(manifest.inputs.map((input) => input.type)).toEqual(['float', 'bool', 'select', 'loras']);
    expect(manifest.inputs[3]).toMatchObject({ default: [{ name: 'a.safetensors', strength: 1 }] });
  });
});
