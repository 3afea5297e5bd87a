import { beforeAll, describe, expect, it } from 'vitest';
import { validateApiGraph } from '../../helpers/graph-validate.js';
import type { ApiGraph, ObjectInfo } from '../../../server/engine/engine-graph.js';
import { coreObjectInfo, engineObjectInfo } from './helpers.js';

let core: ObjectInfo;
beforeAll(() => {
  core = coreObjectInfo();
});

const valid: ApiGraph = {
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 48, batch_size: 1, color: 0 } },
  '2': { class_type: 'ImageAddNoise', inputs: { image: ['1', 0], seed: 5, strength: 0.5 } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'x' } },
};

const types = (graph: ApiGraph, info: ObjectInfo = core) => validateApiGraph(graph, info).map((issue) => [issue.node_id, issue.type, issue.input ?? null]);

describe('validateApiGraph', () => {
  it('accepts a valid graph', () => {
    expect(validateApiGraph(valid, core)).toEqual([]);
  });

  it('reports what the engine would reject', () => {
    expect(types({ ...valid, '4': { class_type: 'NoSuchNode', inputs: {} } })).toEqual([['4', 'missing_node_type', null]]);
    expect(types({ ...valid, '2': { class_type: 'ImageAddNoise', inputs: { image: ['1', 0], seed: 5 } } })).toEqual([
      ['2', 'required_input_missing', 'strength'],
    ]);
    expect(types({ ...valid, '3': { class_type: 'SaveImage', inputs: { images: ['9', 0], filename_prefix: 'x' } } })).toEqual([
      ['3', 'bad_linked_input', 'images'],
    ]);
    expect(types({ ...valid, '3': { class_type: 'SaveImage', inputs: { images: ['2', 3], filename_prefix: 'x' } } })).toEqual([
      ['3', 'bad_linked_input', 'images'],
    ]);
    const latent: ApiGraph = { ...valid, '5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } } };
    expect(types({ ...latent, '3': { class_type: 'SaveImage', inputs: { images: ['5', 0], filename_prefix: 'x' } } })).toEqual([
      ['3', 'return_type_mismatch', 'images'],
    ]);
    expect(types({ ...valid, '2': { class_type: 'ImageAddNoise', inputs: { image: ['1', 0], seed: '5', strength: 2 } } })).toEqual([
      ['2', 'invalid_input_type', 'seed'],
      ['2', 'value_bigger_than_max', 'strength'],
    ]);
    expect(types({ ...valid, '1': { class_type: 'EmptyImage', inputs: { width: 0, height: 48.5, batch_size: 1, color: 0 } } })).toEqual([
      ['1', 'value_smaller_than_min', 'width'],
      ['1', 'invalid_input_type', 'height'],
    ]);
    expect(types({ ...valid, '3': { class_type: 'SaveImage', inputs: { images: 'pixels', filename_prefix: false } } })).toEqual([
      ['3', 'invalid_input_type', 'images'],
      ['3', 'invalid_input_type', 'filename_prefix'],
    ]);
  });

  it('warns about combo values outside the list and undeclared inputs', () => {
    const graph: ApiGraph = {
      ...valid,
      '4': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'magic', width: 8, height: 8, crop: 'disabled', zoom: 2 } },
    };
    const issues = validateApiGraph(graph, core);
    expect(issues.map((issue) => [issue.type, issue.severity])).toEqual([
      ['value_not_in_list', 'warning'],
      ['unknown_input', 'warning'],
    ]);
  });

  it("knows VideoHelperSuite's format-specific widgets", () => {
    const engine = engineObjectInfo();
    const combine = (extra: Record<string, unknown>): ApiGraph => ({
      ...valid,
      '5': {
        class_type: 'VHS_VideoCombine',
        inputs: { images: ['2', 0], frame_rate: 8, loop_count: 0, filename_prefix: 'v', format: 'video/h264-mp4', pingpong: false, save_output: true, ...extra },
      },
    });
    expect(types(combine({ pix_fmt: 'yuv420p', crf: 19, save_metadata: true, trim_to_audio: false }), engine)).toEqual([]);
    expect(types(combine({ crf: 'high', lossless: true }), engine)).toEqual([
      ['5', 'invalid_input_type', 'crf'],
      ['5', 'unknown_input', 'lossless'],
    ]);
  });
});
