import { describe, expect, it } from 'vitest';
import { redirectOutputs } from '../../../server/workflows/output-redirect.js';
import { formatDate, sanitizePrefixBase } from '../../../server/workflows/prefix-tokens.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';
import { coreObjectInfo } from './helpers.js';

const decode = { class_type: 'VAEDecode', inputs: { samples: ['9', 0], vae: ['9', 2] } };
// 2026-03-05 07:08:09 in Rome (UTC+1 in March before the switch to summer time).
const now = new Date('2026-03-05T06:08:09Z');

describe('redirectOutputs', () => {
  it('points a final SaveImage into <job>/final and leaves the input graph alone', () => {
    const graph: ApiGraph = { '8': decode, '10': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'portrait' } } };
    const result = redirectOutputs(graph, 'job_20260305_abc', { now });
    expect(result.graph['10']!.inputs.filename_prefix).toBe('job_20260305_abc/final/portrait');
    expect(result.outputs).toEqual([{ node_id: '10', class_type: 'SaveImage', kind: 'final', filename_prefix: 'job_20260305_abc/final/portrait' }]);
    expect(graph['10']!.inputs.filename_prefix).toBe('portrait');
  });

  it('replaces PreviewImage with SaveImage writing to preview', () => {
    const graph: ApiGraph = { '8': decode, '11': { class_type: 'PreviewImage', inputs: { images: ['8', 0] } } };
    const { graph: out, outputs } = redirectOutputs(graph, 'job1');
    expect(out['11']).toEqual({ class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'job1/preview/preview' } });
    expect(outputs[0]!.kind).toBe('preview');
  });

  it('classifies a saver that feeds another node, or says so in its title, as intermediate', () => {
    const graph: ApiGraph = {
      '8': decode,
      '10': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'stage1' } },
      '11': { class_type: 'ImageInvert', inputs: { image: ['10', 0] } },
      '12': { class_type: 'SaveImage', inputs: { images: ['11', 0], filename_prefix: 'x' }, _meta: { title: 'Intermediate frames' } },
      '13': { class_type: 'SaveImage', inputs: { images: ['11', 0], filename_prefix: 'result' } },
    };
    const kinds = Object.fromEntries(redirectOutputs(graph, 'j').outputs.map((o) => [o.node_id, o.kind]));
    expect(kinds).toEqual({ '10': 'intermediate', '12': 'intermediate', '13': 'final' });
  });

  it('makes the video final and stills intermediate in a video job; VHS always saves to output', () => {
    const graph: ApiGraph = {
      '8': decode,
      '20': {
        class_type: 'VHS_VideoCombine',
        inputs: { images: ['8', 0], frame_rate: 16, loop_count: 0, filename_prefix: 'wan', format: 'video/h264-mp4', pingpong: false, save_output: true },
      },
      '21': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'first_frame' } },
      '22': {
        class_type: 'VHS_VideoCombine',
        inputs: { images: ['8', 0], frame_rate: 8, loop_count: 0, filename_prefix: 'AnimateDiff', format: 'image/webp', pingpong: false, save_output: false },
      },
    };
    const { graph: out, outputs } = redirectOutputs(graph, 'job');
    expect(Object.fromEntries(outputs.map((o) => [o.node_id, o.kind]))).toEqual({ '20': 'final', '21': 'intermediate', '22': 'preview' });
    expect(out['22']!.inputs).toMatchObject({ save_output: true, filename_prefix: 'job/preview/AnimateDiff' });
  });

  it('lets outputs_map overrides win', () => {
    const graph: ApiGraph = { '8': decode, '10': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'a' } } };
    expect(redirectOutputs(graph, 'j', { overrides: { '10': 'preview' } }).outputs[0]!.kind).toBe('preview');
  });

  it('replaces a linked filename_prefix with the literal, named after the linked value', () => {
    const graph: ApiGraph = {
      '8': decode,
      '30': { class_type: 'PrimitiveString', inputs: { value: 'from_primitive' } },
      '10': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: ['30', 0] } },
      '31': { class_type: 'StringConcatenate', inputs: { string_a: ['30', 0], string_b: 'x', delimiter: '' } },
      '11': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: ['31', 0] } },
    };
    const { graph: out } = redirectOutputs(graph, 'j', { objectInfo: coreObjectInfo() });
    expect(out['10']!.inputs.filename_prefix).toBe('j/final/from_primitive');
    // No literal to borrow: the schema default (ComfyUI) names it.
    expect(out['11']!.inputs.filename_prefix).toBe('j/final/ComfyUI');
  });

  it('treats unknown savers by the schema: output nodes final, others intermediate', () => {
    const graph: ApiGraph = {
      '8': decode,
      '40': { class_type: 'SaveLatent', inputs: { samples: ['9', 0], filename_prefix: 'latents/ComfyUI' } },
      '41': { class_type: 'SideSaver', inputs: { images: ['8', 0], filename_prefix: 'side' } },
    };
    const info = { ...coreObjectInfo(), SideSaver: { input: { required: {} }, output: ['IMAGE'], output_node: false } };
    const kinds = Object.fromEntries(redirectOutputs(graph, 'j', { objectInfo: info }).outputs.map((o) => [o.node_id, o.kind]));
    expect(kinds).toEqual({ '40': 'final', '41': 'intermediate' });
  });

  it.each(['../x', '/abs', 'a/b', '', '.hidden', 'a b'])('refuses the job folder name %j', (folder) => {
    expect(() => redirectOutputs({}, folder)).toThrow('invalid job folder');
  });
});

describe('sanitizePrefixBase', () => {
  it.each([
    ['ComfyUI', 'ComfyUI'],
    ['video/ComfyUI', 'ComfyUI'],
    ['../../etc/passwd', 'passwd'],
    ['/abs/path/name', 'name'],
    ['C:\\Users\\me\\out', 'out'],
    ['C:out', 'out'],
    ['..', 'output'],
    ['', 'output'],
    ['.hidden', 'hidden'],
    ['img_%date:yyyy-MM-dd%', 'img_2026-03-05'],
    ['%date:yyyy/MM/dd%/shot', 'shot'],
    ['%date:hhmmss%_x', '070809_x'],
    ['x_%Empty Latent Image.width%_%width%x%height%', 'x__%width%x%height%'],
    ['we:ird*na"me?', 'we_ird_na_me_'],
    ['ünïcode 名前', 'ünïcode 名前'],
  ])('%j → %j', (prefix, expected) => {
    expect(sanitizePrefixBase(prefix, now)).toBe(expected);
  });

  it('formats dates like the engine frontend', () => {
    expect(formatDate('yyyy-MM-dd hh:mm:ss', now)).toBe('2026-03-05 07:08:09');
    expect(formatDate('yy.M.d h-m-s', now)).toBe('26.3.5 7-8-9');
  });
});
