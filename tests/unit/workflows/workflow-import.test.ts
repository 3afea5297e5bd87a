/**
 * The import's pure parts against the real ComfyUI 0.29.0 `object_info`: the editor's format →
 * API graph (primitives, reroutes, muted and bypassed nodes, control widgets), the API format,
 * PNGs carrying a workflow, bad files, the proposed form and the needs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import { proposeForm } from '../../../server/workflows/import/propose-form.js';
import { readWorkflowFile } from '../../../server/workflows/import/read-workflow-file.js';
import { modelHashes } from '../../../server/workflows/import/model-match.js';
import { requirementsOf } from '../../../server/workflows/import/requirements.js';
import type { ApiGraph, ObjectInfo } from '../../../server/engine/engine-graph.js';
import { classicApi, classicUi, img2imgUi, pngWithText, subgraphUi, webpWithExif } from '../../fixtures/workflow-import/fixtures.js';

const objectInfo = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'resources', 'standin', 'object_info.comfyui-0.29.0.json'), 'utf8')) as ObjectInfo;
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const withoutMeta = (graph: ApiGraph) => Object.fromEntries(Object.entries(graph).map(([id, n]) => [id, { class_type: n.class_type, inputs: n.inputs }]));

describe('the editor format → API graph', () => {
  it('resolves the primitive into both seeds, the reroute and the bypassed node; drops muted nodes, notes and control values', () => {
    const read = readWorkflowFile(json(classicUi()), objectInfo);
    expect(read.source).toBe('ui');
    expect(withoutMeta(read.graph)).toEqual(classicApi());
    expect(read.graph['6']!._meta?.title).toBe('Positive');
    expect(read.warnings).toEqual([]);
  });

  it('reads the API format as it is, and the same graph from a PNG tEXt chunk', () => {
    expect(withoutMeta(readWorkflowFile(json(classicApi()), objectInfo).graph)).toEqual(classicApi());
    const png = readWorkflowFile(pngWithText({ prompt: JSON.stringify(classicApi()), workflow: JSON.stringify(classicUi()) }), objectInfo);
    expect(png.source).toBe('png');
    expect(withoutMeta(png.graph)).toEqual(classicApi());
    const promptOnly = readWorkflowFile(pngWithText({ prompt: JSON.stringify(classicApi()) }), objectInfo);
    expect(withoutMeta(promptOnly.graph)).toEqual(classicApi());
    const webp = readWorkflowFile(webpWithExif({ prompt: JSON.stringify(classicApi()), workflow: JSON.stringify(classicUi()) }), objectInfo);
    expect(webp.source).toBe('webp');
    expect(webp.ui).toBeDefined();
    expect(withoutMeta(webp.graph)).toEqual(classicApi());
  });

  it('flattens a subgraph: inner nodes get the frontend\'s path ids, boundary links join the outer ones, a promoted widget wins', () => {
    const read = readWorkflowFile(json(subgraphUi()), objectInfo);
    const graph = withoutMeta(read.graph);
    const expected = classicApi();
    delete expected['6'];
    delete expected['7'];
    expected['30:1'] = { class_type: 'CLIPTextEncode', inputs: { text: 'a promoted fox', clip: ['4', 1] } };
    expected['30:2'] = { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } };
    for (const id of ['3', '12']) Object.assign(expected[id]!.inputs, { positive: ['30:1', 0], negative: ['30:2', 0] });
    expect(graph).toEqual(expected);
    const form = proposeForm(read, objectInfo);
    // An inner node has no integer id for the manifest: its inputs are placeholders in the stored graph.
    expect(form.inputs.slice(0, 2)).toMatchObject([{ id: 'positive', default: 'a promoted fox' }, { id: 'negative', default: 'blurry' }]);
    expect(form.inputs[0]).not.toHaveProperty('node_id');
    expect(form.graph['30:1']!.inputs.text).toBe('{{positive}}');
  });

  it('takes widgets promoted with properties.proxyWidgets: through a subgraph input (-1) or straight onto an inner node', () => {
    const ui = subgraphUi() as { nodes: { id: number; properties?: Record<string, unknown>; widgets_values: unknown[] }[] };
    const instance = ui.nodes.find((n) => n.id === 30)!;
    instance.properties = { proxyWidgets: [['-1', 'text'], ['2', 'text']] };
    instance.widgets_values = ['via the input', 'straight onto the negative'];
    const graph = readWorkflowFile(json(ui), objectInfo).graph;
    expect(graph['30:1']!.inputs.text).toBe('via the input');
    expect(graph['30:2']!.inputs.text).toBe('straight onto the negative');
  });

  it('skips the upload button value after LoadImage', () => {
    const graph = readWorkflowFile(json(img2imgUi()), objectInfo).graph;
    expect(graph['10']!.inputs).toEqual({ image: 'example.png' });
  });

  it('says what is wrong with a bad file', () => {
    const bad = (value: Buffer | unknown) => () => readWorkflowFile(Buffer.isBuffer(value) ? value : json(value), objectInfo);
    expect(bad(Buffer.from('hello'))).toThrow(/not a workflow/);
    expect(bad({ hello: 'world' })).toThrow(/not a workflow/);
    expect(bad(pngWithText({ parameters: 'a1111 text' }))).toThrow(/carries no "workflow" or "prompt"/);
    const noClass = classicUi();
    (noClass.nodes as { type?: string }[])[0]!.type = undefined;
    expect(bad(noClass)).toThrow(/node 4 has no class/);
    const dangling = classicUi();
    (dangling.links as unknown[][]).push([99, 77, 0, 3, 0, 'MODEL']);
    expect(bad(dangling)).toThrow(/link 99 comes from node 77, which the workflow lacks/);
    expect(bad({ '1': { class_type: 'VAEDecode', inputs: { samples: ['5', 0] } } })).toThrow(/links to node 5, which the workflow lacks/);
    expect(bad({ '1': { inputs: {} } })).toThrow(/node 1 has no class/);
  });
});

describe('the proposed form', () => {
  it('guesses prompts, one seed for the primitive (as a placeholder in both samplers), steps, cfg and size', () => {
    const form = proposeForm(readWorkflowFile(json(classicUi()), objectInfo), objectInfo);
    expect(form.inputs.map((input) => input.id)).toEqual(['positive', 'negative', 'seed', 'steps', 'cfg', 'width', 'height', 'batch_size']);
    expect(form.inputs[0]).toMatchObject({ type: 'text', node_id: 6, field: 'text', default: 'a red fox in the snow', multiline: true, label: 'Prompt' });
    expect(form.inputs[2]).toEqual(expect.objectContaining({ type: 'seed', default: -1 }));
    expect(form.inputs[2]).not.toHaveProperty('node_id');
    expect(form.graph['3']!.inputs.seed).toBe('{{seed}}');
    expect(form.graph['12']!.inputs.noise_seed).toBe('{{seed}}');
    expect(form.inputs[3]).toMatchObject({ type: 'int', node_id: 3, field: 'steps', default: 25, min: 1, max: 10000 });
    expect(form.inputs[4]).toMatchObject({ type: 'float', default: 6.5, min: 0, max: 100, step: 0.1 });
    expect(form.inputs[5]).toMatchObject({ type: 'int', node_id: 5, default: 832, min: 16, step: 8 });
    expect(form.outputs).toEqual([{ type: 'image', format: 'png' }]);
  });

  it('adds the LoadImage image and denoise for image to image', () => {
    const form = proposeForm(readWorkflowFile(json(img2imgUi()), objectInfo), objectInfo);
    expect(form.inputs.find((input) => input.id === 'image')).toMatchObject({ type: 'image', node_id: 10, field: 'image', default: 'example.png' });
    expect(form.inputs.find((input) => input.id === 'denoise')).toMatchObject({ type: 'float', default: 0.6, min: 0, max: 1 });
    expect(form.inputs.find((input) => input.id === 'seed')).toMatchObject({ type: 'seed', node_id: 3, field: 'seed' });
  });

  it('proposes every widget of the small utility nodes when the guesses leave few inputs (a blur: image, radius, sigma)', () => {
    const blur = {
      '1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
      '2': { class_type: 'ImageBlur', inputs: { image: ['1', 0], blur_radius: 3, sigma: 1.5 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'blurred' } },
    };
    const form = proposeForm(readWorkflowFile(json(blur), objectInfo), objectInfo);
    expect(form.inputs.map((input) => [input.id, input.type, input.default])).toEqual([['image', 'image', 'example.png'], ['blur_radius', 'int', 3], ['sigma', 'float', 1.5]]);
    expect(form.inputs.find((input) => input.id === 'sigma')).toMatchObject({ label: 'Sigma', node_id: 2, field: 'sigma', min: 0.1, max: 10 });
    // A full text-to-image graph has enough guessed inputs: its small nodes' widgets stay out.
    const classic = proposeForm(readWorkflowFile(json(classicUi()), objectInfo), objectInfo);
    expect(classic.inputs.some((input) => input.id === 'filename_prefix' || input.id === 'ckpt_name')).toBe(false);
  });

  it('puts App Mode inputs first, then nodes titled "Input:", then guesses; App Mode outputs pick the save nodes', () => {
    const ui = classicUi();
    (ui.extra as Record<string, unknown>).linearData = { inputs: [[5, 'width'], ['3', 'sampler_name', { height: 2 }]], outputs: [9] };
    const nodes = ui.nodes as { id: number; title?: string }[];
    nodes.find((n) => n.id === 7)!.title = 'Input: Avoid';
    const form = proposeForm(readWorkflowFile(json(ui), objectInfo), objectInfo);
    expect(form.inputs.slice(0, 3).map((input) => [input.id, input.type])).toEqual([['width', 'int'], ['sampler_name', 'select'], ['avoid', 'text']]);
    expect(form.inputs.filter((input) => input.id === 'negative')).toEqual([]);
    expect(form.inputs.find((input) => input.id === 'sampler_name')).toMatchObject({ default: 'euler', options: expect.arrayContaining(['euler', 'dpmpp_2m']) });
    expect(form.inputs.slice(0, 2).map((input) => input.label)).toEqual(['Width', 'Sampler name']);
    // A bare widget name ("Text") is no label: the node's title, else its display name, is.
    const texts = classicUi();
    (texts.extra as Record<string, unknown>).linearData = { inputs: [[6, 'text']], outputs: [9] };
    expect(proposeForm(readWorkflowFile(json(texts), objectInfo), objectInfo).inputs[0]).toMatchObject({ id: 'text', label: 'Positive' });
    delete (texts.nodes as { id: number; title?: string }[]).find((n) => n.id === 6)!.title;
    expect(proposeForm(readWorkflowFile(json(texts), objectInfo), objectInfo).inputs[0]).toMatchObject({ id: 'text', label: 'CLIP Text Encode (Prompt)' });
  });
});

describe('needs', () => {
  it('names the checkpoint, no package for core nodes, and the package and install URL of a node type the engine lacks', () => {
    const graph = { ...classicApi(), '20': { class_type: 'ImageResizeKJ', inputs: { image: ['8', 0] } }, '21': { class_type: 'MysteryNode', inputs: {} } };
    const map = { ImageResizeKJ: { package: 'ComfyUI-KJNodes', url: 'https://github.com/kijai/ComfyUI-KJNodes' } };
    const needs = requirementsOf(graph, objectInfo, map, { destOf: (file) => (file === 'sd_xl_base_1.0.safetensors' ? 'checkpoints' : undefined), fileBySha256: () => undefined });
    expect(needs.required_models).toEqual(['sd_xl_base_1.0.safetensors']);
    expect(needs.required_nodes).toEqual(['ComfyUI-KJNodes', 'MysteryNode']);
    expect(needs.node_sources).toEqual({ 'ComfyUI-KJNodes': 'https://github.com/kijai/ComfyUI-KJNodes' });
    expect(needs.warnings.join('\n')).toMatch(/"MysteryNode" is not in the engine/);
  });

  it('reads the SHA-256 sums the editor records (top-level models, node properties, subgraphs) and renames a match to the catalog file', () => {
    const sha = (c: string) => c.repeat(64);
    const raw = {
      nodes: [{ id: 1, type: 'CheckpointLoaderSimple', properties: { models: [{ name: 'a.safetensors', url: 'https://x/a', hash: sha('A'), hash_type: 'sha256', directory: 'checkpoints' }] } }],
      models: [{ name: 'b.safetensors', url: 'https://x/b', hash: sha('b'), directory: 'loras' }, { name: 'c.safetensors', url: 'https://x/c', hash: 'abc', hash_type: 'md5', directory: 'vae' }],
      definitions: { subgraphs: [{ id: 's', nodes: [{ id: 1, type: 'VAELoader', properties: { models: [{ name: 'd.safetensors', hash: sha('d') }] } }] }] },
    };
    expect([...modelHashes(raw)].sort()).toEqual([['a.safetensors', sha('a')], ['b.safetensors', sha('b')], ['d.safetensors', sha('d')]]);
    const graph = { '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'old\\a.safetensors' } } };
    const catalog = { destOf: () => undefined, fileBySha256: (h: string) => (h === sha('a') ? 'real.safetensors' : undefined) };
    const needs = requirementsOf(graph, objectInfo, {}, catalog, modelHashes(raw));
    expect(needs.required_models).toEqual(['real.safetensors']);
    expect([...needs.renamed]).toEqual([['old\\a.safetensors', 'real.safetensors']]);
  });
});
