import { beforeAll, describe, expect, it } from 'vitest';
import { apiToUiWorkflow } from '../../../server/workflows/graph-to-ui.js';
import type { UiNode, UiWorkflow } from '../../../server/workflows/types.js';
import type { ApiGraph, ObjectInfo } from '../../../server/engine/engine-graph.js';
import { checkUiWorkflow, coreObjectInfo, engineObjectInfo, sampleObjectInfo, uiToApi } from './helpers.js';

let core: ObjectInfo;
let sample: ObjectInfo;
let engine: ObjectInfo;

beforeAll(() => {
  core = coreObjectInfo();
  sample = sampleObjectInfo();
  engine = engineObjectInfo();
});

const nodeOf = (ui: UiWorkflow, id: number): UiNode => ui.nodes.find((node) => node.id === id)!;

/** A txt2img graph in the engine's own default layout of ids. */
const txt2img: ApiGraph = {
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a fox', clip: ['4', 1] }, _meta: { title: 'Positive' } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] }, _meta: { title: 'CLIP Text Encode (Prompt)' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 1024, height: 1024, batch_size: 1 } },
  '3': {
    class_type: 'KSampler',
    inputs: {
      seed: 123,
      steps: 20,
      cfg: 7,
      sampler_name: 'euler',
      scheduler: 'normal',
      denoise: 1,
      model: ['4', 0],
      positive: ['6', 0],
      negative: ['7', 0],
      latent_image: ['5', 0],
    },
  },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'out' } },
};

describe('apiToUiWorkflow', () => {
  it('orders widgets_values by input_order with a fixed control after seeds (worked examples)', () => {
    const graph: ApiGraph = {
      ...txt2img,
      '10': { class_type: 'EmptyImage', inputs: { width: 64, height: 48, batch_size: 1, color: 255 } },
      '11': { class_type: 'ImageAddNoise', inputs: { image: ['10', 0], seed: 5, strength: 0.5 } },
      '12': { class_type: 'ImageScale', inputs: { image: ['11', 0], upscale_method: 'nearest-exact', width: 128, height: 96, crop: 'disabled' } },
      '13': { class_type: 'LoadImage', inputs: { image: 'x.png' } },
      '14': { class_type: 'LoadImageMask', inputs: { image: 'm.png', channel: 'alpha' } },
      '15': { class_type: 'PrimitiveInt', inputs: { value: 7 } },
    };
    const ui = apiToUiWorkflow(graph, core);
    expect(nodeOf(ui, 3).widgets_values).toEqual([123, 'fixed', 20, 7, 'euler', 'normal', 1]);
    expect(nodeOf(ui, 11).widgets_values).toEqual([5, 'fixed', 0.5]);
    expect(nodeOf(ui, 10).widgets_values).toEqual([64, 48, 1, 255]);
    expect(nodeOf(ui, 12).widgets_values).toEqual(['nearest-exact', 128, 96, 'disabled']);
    expect(nodeOf(ui, 9).widgets_values).toEqual(['out']);
    expect(nodeOf(ui, 13).widgets_values).toEqual(['x.png', 'image']);
    expect(nodeOf(ui, 14).widgets_values).toEqual(['m.png', 'alpha', 'image']);
    expect(nodeOf(ui, 15).widgets_values).toEqual([7, 'fixed']);
    expect(checkUiWorkflow(ui)).toEqual([]);
  });

  it('adds no control when the schema says control_after_generate: false', () => {
    const graph: ApiGraph = {
      '1': {
        class_type: 'MoonvalleyVideo2VideoNode',
        inputs: { prompt: 'p', negative_prompt: 'n', seed: 9, steps: 33, control_type: 'Pose Transfer', motion_intensity: 50 },
      },
    };
    const node = apiToUiWorkflow(graph, core).nodes[0]!;
    expect(node.widgets_values).toEqual(['p', 'n', 9, 33, 'Pose Transfer', 50]);
    expect(node.inputs[0]).toEqual({ name: 'video', type: 'VIDEO', link: null });
    // Every widget also has its (unlinked) socket, as current frontends save it.
    expect(node.inputs.slice(1).map((input) => input.widget?.name)).toEqual(['prompt', 'negative_prompt', 'seed', 'steps', 'control_type', 'motion_intensity']);
    expect(node.inputs.slice(1).every((input) => input.link === null)).toBe(true);
  });

  it('adds the seed control by name when the option is absent (older engine)', () => {
    const ksampler: ApiGraph = { '3': { class_type: 'KSampler', inputs: { ...txt2img['3']!.inputs } } };
    expect(sample.KSampler!.input!.required!.seed![1]!.control_after_generate).toBeUndefined();
    const node = apiToUiWorkflow(ksampler, sample).nodes[0]!;
    expect(node.widgets_values).toEqual([123, 'fixed', 20, 7, 'euler', 'normal', 1]);
  });

  it('writes links as [id, from, fromSlot, to, toSlot, type] with sockets before widget sockets', () => {
    const graph: ApiGraph = {
      ...txt2img,
      '20': { class_type: 'PrimitiveInt', inputs: { value: 77 } },
      '3': { ...txt2img['3']!, inputs: { ...txt2img['3']!.inputs, seed: ['20', 0], steps: ['20', 0] } },
    };
    const ui = apiToUiWorkflow(graph, core);
    const sampler = nodeOf(ui, 3);
    expect(sampler.inputs.map((input) => [input.name, input.type, input.widget?.name ?? null])).toEqual([
      ['model', 'MODEL', null],
      ['positive', 'CONDITIONING', null],
      ['negative', 'CONDITIONING', null],
      ['latent_image', 'LATENT', null],
      ['seed', 'INT', 'seed'],
      ['steps', 'INT', 'steps'],
      ['cfg', 'FLOAT', 'cfg'],
      ['sampler_name', 'COMBO', 'sampler_name'],
      ['scheduler', 'COMBO', 'scheduler'],
      ['denoise', 'FLOAT', 'denoise'],
    ]);
    // Linked widgets keep their slot in widgets_values with the schema default.
    expect(sampler.widgets_values).toEqual([0, 'fixed', 20, 7, 'euler', 'normal', 1]);
    const into = (name: string) => ui.links.find((link) => link[0] === sampler.inputs.find((input) => input.name === name)!.link)!;
    expect(into('model')).toEqual([expect.any(Number), 4, 0, 3, 0, 'MODEL']);
    expect(into('latent_image')).toEqual([expect.any(Number), 5, 0, 3, 3, 'LATENT']);
    // toSlot of a widget socket = plain sockets (4) + its index among the widgets (seed 0, steps 1).
    expect(into('seed')).toEqual([expect.any(Number), 20, 0, 3, 4, 'INT']);
    expect(into('steps')).toEqual([expect.any(Number), 20, 0, 3, 5, 'INT']);
    expect(into('positive')[4]).toBe(1);
    expect(nodeOf(ui, 4).outputs).toEqual([
      { name: 'MODEL', type: 'MODEL', links: [into('model')[0]], slot_index: 0 },
      { name: 'CLIP', type: 'CLIP', links: [expect.any(Number), expect.any(Number)], slot_index: 1 },
      { name: 'VAE', type: 'VAE', links: [expect.any(Number)], slot_index: 2 },
    ]);
    expect(nodeOf(ui, 9).outputs).toEqual([]);
    expect(ui.last_link_id).toBe(ui.links.length);
    expect(checkUiWorkflow(ui)).toEqual([]);
  });

  it('has the schema 0.4 envelope, ids, order and a layered layout', () => {
    const ui = apiToUiWorkflow(txt2img, core);
    expect(ui).toMatchObject({ version: 0.4, last_node_id: 9, groups: [], config: {}, extra: { ds: { scale: 1, offset: [0, 0] } } });
    expect(ui.nodes.map((node) => node.id).sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    for (const [, from, , to] of ui.links) expect(nodeOf(ui, from).pos[0]).toBeLessThan(nodeOf(ui, to).pos[0]);
    const positions = new Set(ui.nodes.map((node) => node.pos.join(',')));
    expect(positions.size).toBe(ui.nodes.length);
    expect(nodeOf(ui, 6).title).toBe('Positive');
    expect(nodeOf(ui, 7).title).toBeUndefined();
    expect(nodeOf(ui, 3).size).toEqual([320, 60 + 26 * 7]);
    expect(nodeOf(ui, 3).properties).toEqual({ 'Node name for S&R': 'KSampler' });
  });

  it('round-trips through the frontend rules back to the same API graph', () => {
    const back = uiToApi(apiToUiWorkflow(txt2img, core), core);
    const expected = Object.fromEntries(Object.entries(txt2img).map(([id, node]) => [id, { class_type: node.class_type, inputs: node.inputs }]));
    expect(back).toEqual(expected);
  });

  it('gives non-numeric ids fresh numbers above the largest', () => {
    const graph: ApiGraph = {
      '5': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
      '10:3': { class_type: 'ImageInvert', inputs: { image: ['5', 0] } },
      save: { class_type: 'SaveImage', inputs: { images: ['10:3', 0], filename_prefix: 'x' } },
    };
    const ui = apiToUiWorkflow(graph, core);
    expect(ui.nodes.map((node) => [node.type, node.id])).toEqual([
      ['EmptyImage', 5],
      ['ImageInvert', 6],
      ['SaveImage', 7],
    ]);
    expect(ui.last_node_id).toBe(7);
    expect(ui.links.map((link) => [link[1], link[3]])).toEqual([
      [5, 6],
      [6, 7],
    ]);
  });

  it('flags node types the engine does not know but keeps their links', () => {
    const graph: ApiGraph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } },
      '2': { class_type: 'MysteryFilter', inputs: { pixels: ['1', 0], amount: 3 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 1], filename_prefix: 'x' } },
    };
    const ui = apiToUiWorkflow(graph, core);
    const mystery = nodeOf(ui, 2);
    expect(ui.extra.missing_node_types).toEqual(['MysteryFilter']);
    expect(mystery.widgets_values).toEqual([]);
    expect(mystery.inputs).toEqual([{ name: 'pixels', type: 'IMAGE', link: 1 }]);
    expect(mystery.outputs.map((output) => output.links)).toEqual([null, [2]]);
    expect(ui.links).toEqual([
      [1, 1, 0, 2, 0, 'IMAGE'],
      [2, 2, 1, 3, 0, '*'],
    ]);
    expect(checkUiWorkflow(ui)).toEqual([]);
    expect(apiToUiWorkflow(txt2img, core).extra.missing_node_types).toBeUndefined();
  });

  it('points a link into a widget that follows an unlinked widget at a socket that exists', () => {
    // cfg is the third widget of KSampler; seed and steps before it stay unlinked.
    const graph: ApiGraph = {
      ...txt2img,
      '21': { class_type: 'PrimitiveFloat', inputs: { value: 6.5 } },
      '3': { ...txt2img['3']!, inputs: { ...txt2img['3']!.inputs, cfg: ['21', 0] } },
    };
    const ui = apiToUiWorkflow(graph, core);
    const sampler = nodeOf(ui, 3);
    const link = ui.links.find((l) => l[1] === 21)!;
    const target = sampler.inputs[link[4]];
    expect(target).toMatchObject({ name: 'cfg', widget: { name: 'cfg' }, link: link[0] });
    expect(checkUiWorkflow(ui)).toEqual([]);
  });

  it('falls back to the schema key order when input_order is absent', () => {
    const old: ObjectInfo = Object.fromEntries(
      Object.entries(core).map(([name, info]) => {
        const { input_order: _ignored, ...rest } = info;
        return [name, rest];
      }),
    );
    const ui = apiToUiWorkflow(txt2img, old);
    expect(nodeOf(ui, 3).widgets_values).toEqual([123, 'fixed', 20, 7, 'euler', 'normal', 1]);
    expect(nodeOf(ui, 3).inputs.map((input) => input.name)).toEqual(['model', 'positive', 'negative', 'latent_image', 'seed', 'steps', 'cfg', 'sampler_name', 'scheduler', 'denoise']);
  });

  it('handles forceInput, combo controls and __value__ lists per the frontend rules', () => {
    const defs: ObjectInfo = {
      Custom: {
        input: {
          required: {
            count: ['INT', { forceInput: true }],
            mode: [['a', 'b'], { control_after_generate: true }],
            items: ['STRING', {}],
          },
          optional: { extra: ['FLOAT', { default: 0.5 }] },
        },
        input_order: { required: ['count', 'mode', 'items'], optional: ['extra'] },
        output: ['INT'],
        output_name: ['n'],
      },
    };
    const ui = apiToUiWorkflow({ '1': { class_type: 'Custom', inputs: { mode: 'b', items: { __value__: ['x', 'y'] } } } }, defs);
    const node = ui.nodes[0]!;
    expect(node.widgets_values).toEqual(['b', 'fixed', '', ['x', 'y'], 0.5]);
    expect(node.inputs).toEqual([
      { name: 'count', type: 'INT', link: null },
      { name: 'mode', type: 'COMBO', widget: { name: 'mode' }, link: null },
      { name: 'items', type: 'STRING', widget: { name: 'items' }, link: null },
      { name: 'extra', type: 'FLOAT', widget: { name: 'extra' }, link: null },
    ]);
    expect(node.outputs).toEqual([{ name: 'n', type: 'INT', links: null, slot_index: 0 }]);
  });

  it('stores VideoHelperSuite widgets as a dict with format extras and a preview entry', () => {
    const graph: ApiGraph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 4, color: 0 } },
      '2': {
        class_type: 'VHS_VideoCombine',
        inputs: {
          images: ['1', 0],
          frame_rate: 16,
          loop_count: 0,
          filename_prefix: 'clip',
          format: 'video/h264-mp4',
          pingpong: false,
          save_output: true,
          pix_fmt: 'yuv420p',
          crf: 19,
          save_metadata: true,
          trim_to_audio: false,
        },
      },
    };
    const ui = apiToUiWorkflow(graph, engine);
    const vhs = nodeOf(ui, 2);
    expect(vhs.widgets_values).toEqual({
      frame_rate: 16,
      loop_count: 0,
      filename_prefix: 'clip',
      format: 'video/h264-mp4',
      pix_fmt: 'yuv420p',
      crf: 19,
      save_metadata: true,
      trim_to_audio: false,
      pingpong: false,
      save_output: true,
      videopreview: { hidden: false, paused: false, params: {} },
    });
    expect(Object.keys(vhs.widgets_values).slice(3, 6)).toEqual(['format', 'pix_fmt', 'crf']);
    expect(vhs.inputs.slice(0, 4)).toEqual([
      { name: 'images', type: 'IMAGE', link: 1 },
      { name: 'audio', type: 'AUDIO', link: null },
      { name: 'meta_batch', type: 'VHS_BatchManager', link: null },
      { name: 'vae', type: 'VAE', link: null },
    ]);
    expect(vhs.inputs.slice(4).map((input) => input.widget?.name)).toEqual(['frame_rate', 'loop_count', 'filename_prefix', 'format', 'pingpong', 'save_output']);
    expect(vhs.outputs).toEqual([{ name: 'Filenames', type: 'VHS_FILENAMES', links: null, slot_index: 0 }]);
    expect(uiToApi(ui, engine)['2']!.inputs).toEqual(graph['2']!.inputs);
  });

  it('still opens a graph with a cycle', () => {
    const graph: ApiGraph = {
      '1': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } },
      '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
    };
    const ui = apiToUiWorkflow(graph, core);
    expect(ui.nodes.map((node) => node.order).sort()).toEqual([0, 1]);
    expect(ui.links).toHaveLength(2);
  });

  it('is checked by helpers that do catch broken output', () => {
    const ui = apiToUiWorkflow(txt2img, core);
    const shifted = structuredClone(ui);
    nodeOf(shifted, 3).widgets_values = [123, 20, 7, 'euler', 'normal', 1];
    expect(() => uiToApi(shifted, core)).toThrow();
    const relinked = structuredClone(ui);
    relinked.links[0]![5] = 'LATENT';
    relinked.last_link_id = 99;
    nodeOf(relinked, 4).order = 6;
    expect(checkUiWorkflow(relinked)).toEqual(
      expect.arrayContaining([
        'last_link_id is not the largest link id',
        'order is not 0..n-1',
        expect.stringContaining('differs from output type'),
        expect.stringContaining('runs against execution order'),
      ]),
    );
  });
});
