import { describe, expect, it } from 'vitest';
import { buildStaticGraph } from '../../../server/workflows/graph-static.js';
import { parseManifest, type WorkflowManifest } from '../../../server/contracts/workflows.contract.js';
import { WorkflowBuildError } from '../../../server/workflows/workflow-errors.js';

function manifest(inputs: unknown[]): WorkflowManifest {
  return parseManifest({ id: 't', name: 'T', type: 'static', version: 1, date: '2026-11-22 10:00', inputs });
}

const template = JSON.stringify({
  '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
  '2': { class_type: 'CLIPTextEncode', inputs: { text: 'a photo of {{subject}}, 35mm', clip: ['4', 1] } },
  '3': { class_type: 'KSampler', inputs: { seed: '{{seed}}', steps: '{{steps}}', cfg: '{{ cfg }}', add_noise: '{{noise}}', model: ['4', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'm.safetensors' } },
});

const inputs = [
  { id: 'image', type: 'image' },
  { id: 'subject', type: 'text', default: 'a fox' },
  { id: 'seed', type: 'seed' },
  { id: 'steps', type: 'int', default: 20, min: 1, max: 100 },
  { id: 'cfg', type: 'float', default: 7.5 },
  { id: 'noise', type: 'bool', default: true },
];

function buildError(fn: () => unknown): WorkflowBuildError {
  try {
    fn();
  } catch (error) {
    if (error instanceof WorkflowBuildError) return error;
    throw error;
  }
  throw new Error('expected a WorkflowBuildError');
}

describe('buildStaticGraph', () => {
  it('turns a whole-string placeholder into the typed value', () => {
    const graph = buildStaticGraph(template, manifest(inputs), { image: 'up_1.png', seed: 123, steps: '30', noise: 'false' });
    expect(graph['3']!.inputs).toEqual({ seed: 123, steps: 30, cfg: 7.5, add_noise: false, model: ['4', 0] });
    expect(graph['1']!.inputs.image).toBe('up_1.png');
    expect(graph['2']!.inputs.text).toBe('a photo of a fox, 35mm');
  });

  it('splices text safely: quotes, backslashes, newlines and braces cannot break out', () => {
    const hostile = 'x", "evil": {"class_type": "Boom"}, "y": "\\ \n{{seed}} }}';
    const graph = buildStaticGraph(template, manifest(inputs), { image: 'a.png', seed: 5, subject: hostile });
    expect(graph['2']!.inputs.text).toBe(`a photo of ${hostile}, 35mm`);
    expect(Object.keys(graph['2']!.inputs)).toEqual(['text', 'clip']);
    expect(Object.keys(graph)).toEqual(['1', '2', '3', '4']);
  });

  it('accepts bare placeholders outside strings', () => {
    const bare = '{"1": {"class_type": "EmptyLatentImage", "inputs": {"width": {{w}}, "height": {{ w }}, "batch_size": 1}}}';
    const graph = buildStaticGraph(bare, manifest([{ id: 'w', type: 'int', default: 768 }]), {});
    expect(graph['1']!.inputs).toEqual({ width: 768, height: 768, batch_size: 1 });
  });

  it('leaves placeholder-looking text inside string values of bare templates alone', () => {
    const text = '{"1": {"class_type": "X", "inputs": {"a": "literal \\"{{w}}\\" quoted", "b": {{w}}}}}';
    const graph = buildStaticGraph(text, manifest([{ id: 'w', type: 'int', default: 2 }]), {});
    expect(graph['1']!.inputs).toEqual({ a: 'literal "2" quoted', b: 2 });
  });

  it('names an unknown placeholder (500)', () => {
    const error = buildError(() => buildStaticGraph(template, manifest(inputs.filter((i) => i.id !== 'cfg')), { image: 'a.png', seed: 1 }));
    expect(error.kind).toBe('broken');
    expect(error.message).toContain('{{cfg}}');
  });

  it('uses defaults for missing parameters and fails (400) when there is none', () => {
    const graph = buildStaticGraph(template, manifest(inputs), { image: 'a.png', seed: 9, steps: null });
    expect(graph['3']!.inputs.steps).toBe(20);
    const error = buildError(() => buildStaticGraph(template, manifest(inputs), { seed: 9 }));
    expect(error.kind).toBe('invalid');
    expect(error.message).toBe('missing parameter "image"');
  });

  it.each([
    [{ steps: 0 }, 'below the minimum 1'],
    [{ steps: 101 }, 'above the maximum 100'],
    [{ steps: 2.5 }, 'expected an integer'],
    [{ steps: 'ten' }, 'expected an integer'],
    [{ cfg: 'NaN' }, 'expected a number'],
    [{ noise: 'yes' }, 'expected true or false'],
    [{ image: '../../etc/passwd' }, 'inside the input folder'],
    [{ image: '/abs.png' }, 'inside the input folder'],
    [{ seed: -2 }, 'below the minimum -1'],
  ])('rejects %j with a 400', (patch, message) => {
    const error = buildError(() => buildStaticGraph(template, manifest(inputs), { image: 'a.png', seed: 1, ...patch }));
    expect(error.kind).toBe('invalid');
    expect(error.message).toContain(message);
  });

  it('applies node_id/field mappings without any placeholder', () => {
    const plain = JSON.stringify({ '3': { class_type: 'KSampler', inputs: { steps: 20, seed: 0, model: ['4', 0] } } });
    const mapped = manifest([
      { id: 'steps', type: 'int', node_id: 3, field: 'steps' },
      { id: 'seed', type: 'seed', node_id: 3, field: 'seed' },
    ]);
    const graph = buildStaticGraph(plain, mapped, { steps: 42, seed: 7 });
    expect(graph['3']!.inputs).toEqual({ steps: 42, seed: 7, model: ['4', 0] });
  });

  it('refuses mappings onto a missing node or a linked input', () => {
    const plain = JSON.stringify({ '3': { class_type: 'KSampler', inputs: { model: ['4', 0] } } });
    expect(buildError(() => buildStaticGraph(plain, manifest([{ id: 'a', type: 'int', default: 1, node_id: 9, field: 'x' }]), {})).message).toContain(
      'node 9',
    );
    expect(buildError(() => buildStaticGraph(plain, manifest([{ id: 'a', type: 'int', default: 1, node_id: 3, field: 'model' }]), {})).message).toContain(
      'linked',
    );
  });

  it('reports a template that is not JSON or not a graph (500)', () => {
    expect(buildError(() => buildStaticGraph('{"1": ', manifest([]), {})).kind).toBe('broken');
    expect(buildError(() => buildStaticGraph('[1, 2]', manifest([]), {})).message).toContain('API graph');
    expect(buildError(() => buildStaticGraph('{"1": {"inputs": {}}}', manifest([]), {})).message).toContain('class_type');
  });

  it('does not substitute inside parameter values (no second pass)', () => {
    const graph = buildStaticGraph(template, manifest(inputs), { image: 'a.png', seed: 3, subject: '{{steps}}' });
    expect(graph['2']!.inputs.text).toBe('a photo of {{steps}}, 35mm');
  });
});
