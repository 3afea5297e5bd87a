import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGraph, prepareRun } from '../../../server/workflows/graph-builder.js';
import { apiToUiWorkflow } from '../../../server/workflows/graph-to-ui.js';
import { validateApiGraph } from '../../helpers/graph-validate.js';
import { ENGINE_CORE, groupNodePackages } from '../../../server/workflows/node-packages.js';
import { listPlaceholders, parseTemplate } from '../../../server/workflows/placeholders.js';
import type { ApiGraph, ObjectInfo } from '../../../server/engine/engine-graph.js';
import { loadDefinition, loadIndex, loadWorkflows, type WorkflowDefinition } from '../../../server/workflows/workflow.store.js';
import { checkUiWorkflow, engineObjectInfo, shippedWorkflowsDir, uiToApi } from './helpers.js';

const IDS = ['image-filter', 'img2vid-wan', 'txt2img-sd15', 'txt2img-sdxl', 'txt2img-sdxl-lora'];
const MODEL_FIELDS = ['ckpt_name', 'unet_name', 'clip_name', 'vae_name', 'model_name', 'lora_name'];
/** Combos whose choices depend on files on disk; the fixture's lists say nothing about ours. */
const FILE_FIELDS = new Set([...MODEL_FIELDS, 'image']);

let engine: ObjectInfo;
const definitions = new Map<string, WorkflowDefinition>();

beforeAll(async () => {
  engine = engineObjectInfo();
  for (const entry of await loadWorkflows(shippedWorkflowsDir)) {
    expect(entry.error, `${entry.id}: ${entry.error}`).toBeUndefined();
    definitions.set(entry.id, await loadDefinition(entry));
  }
});

/** Parameters each workflow needs beyond its defaults; the dynamic one exercises every block. */
const params = (id: string): Record<string, unknown> =>
  id === 'txt2img-sdxl-lora'
    ? { loras: [{ name: 'pixel_art.safetensors', strength: 0.8 }, { name: 'ink.safetensors' }], upscale: true }
    : { image: 'example.png' };

function build(id: string): ApiGraph {
  return buildGraph(definitions.get(id)!, params(id), { random: () => 4242 }).graph;
}

describe('shipped workflows', () => {
  it('are the five expected ones, all loading cleanly', () => {
    expect([...definitions.keys()]).toEqual(IDS);
  });

  it('are listed in index.json with their manifest versions and dates', async () => {
    const { index, error } = await loadIndex(shippedWorkflowsDir);
    expect(error).toBeUndefined();
    expect(index.date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    expect(index.workflows.map((w) => w.id).sort()).toEqual(IDS);
    for (const item of index.workflows) {
      const { manifest } = definitions.get(item.id)!;
      expect([item.version, item.date]).toEqual([manifest.version, manifest.date]);
      expect(index.version).toBeGreaterThanOrEqual(item.version);
    }
    const folders = fs.readdirSync(shippedWorkflowsDir).filter((name) => fs.statSync(path.join(shippedWorkflowsDir, name)).isDirectory());
    expect(folders.sort()).toEqual(IDS);
  });

  it.each(IDS)('%s builds a graph the engine schemas accept', (id) => {
    const issues = validateApiGraph(build(id), engine);
    expect(issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    expect(issues.filter((issue) => !FILE_FIELDS.has(issue.input ?? ''))).toEqual([]);
  });

  it.each(IDS)('%s declares every model file and node package its graph uses', (id) => {
    const { manifest } = definitions.get(id)!;
    const graph = build(id);
    const files = Object.values(graph).flatMap((node) =>
      MODEL_FIELDS.filter((field) => node.class_type !== 'LoraLoader' && typeof node.inputs[field] === 'string').map((field) => node.inputs[field]),
    );
    expect([...new Set(files)].sort()).toEqual([...manifest.required_models].sort());
    const packageOf = new Map(groupNodePackages(engine).flatMap((pkg) => pkg.nodes.map((node) => [node, pkg.name] as const)));
    const packages = new Set(Object.values(graph).map((node) => packageOf.get(node.class_type)));
    packages.delete(ENGINE_CORE);
    expect([...packages].sort()).toEqual([...manifest.required_nodes].sort());
  });

  it.each(['image-filter', 'img2vid-wan', 'txt2img-sd15', 'txt2img-sdxl'])('%s: placeholders and node mappings point at the same fields', (id) => {
    const { manifest, template } = definitions.get(id)!;
    const tree = parseTemplate(template!, id) as ApiGraph;
    expect(listPlaceholders(tree).sort()).toEqual(manifest.inputs.map((input) => input.id).sort());
    for (const input of manifest.inputs) {
      expect(tree[String(input.node_id)]?.inputs[input.field!], `${id}.${input.id}`).toBe(`{{${input.id}}}`);
    }
  });

  it.each(IDS)('%s converts to a UI workflow that round-trips', (id) => {
    const graph = build(id);
    const ui = apiToUiWorkflow(graph, engine);
    expect(checkUiWorkflow(ui)).toEqual([]);
    expect(ui.extra.missing_node_types).toBeUndefined();
    const expected = Object.fromEntries(Object.entries(graph).map(([nodeId, node]) => [nodeId, { class_type: node.class_type, inputs: node.inputs }]));
    expect(uiToApi(ui, engine)).toEqual(expected);
  });

  it('image-filter needs no weights and no custom nodes', () => {
    const { manifest } = definitions.get('image-filter')!;
    expect([manifest.required_models, manifest.required_nodes]).toEqual([[], []]);
    expect(Object.values(build('image-filter')).map((node) => node.class_type)).toEqual(['LoadImage', 'ImageAddNoise', 'ImageBlur', 'SaveImage']);
  });

  it('img2vid-wan takes image, text, int and seed inputs and saves an H.264 MP4 at 16 fps', () => {
    const { manifest } = definitions.get('img2vid-wan')!;
    expect(new Set(manifest.inputs.map((input) => input.type))).toEqual(new Set(['image', 'text', 'int', 'seed']));
    const built = buildGraph(definitions.get('img2vid-wan')!, { image: 'me.png', length: 33, seed: 5 });
    const save = Object.values(built.graph).find((node) => node.class_type === 'VHS_VideoCombine')!;
    expect(save.inputs).toMatchObject({ format: 'video/h264-mp4', frame_rate: 16 });
    expect(Object.values(built.graph).find((node) => node.class_type === 'WanImageToVideo')!.inputs.length).toBe(33);
    expect(built.seeds).toEqual({ seed: 5 });
  });

  it('prepareRun resolves seeds, fills the uploaded image and redirects outputs', () => {
    const run = prepareRun(definitions.get('img2vid-wan')!, { _existing_input_image: 'old.png' }, 'job_1', {
      uploadedImage: 'new_123.png',
      random: () => 777,
      objectInfo: engine,
    });
    expect(run.seeds).toEqual({ seed: 777 });
    expect(run.params).toMatchObject({ image: 'new_123.png', seed: 777 });
    expect(run.graph['1']!.inputs.image).toBe('new_123.png');
    expect(run.outputs).toEqual([{ node_id: '13', class_type: 'VHS_VideoCombine', kind: 'final', filename_prefix: 'job_1/final/wan_i2v' }]);

    const again = prepareRun(definitions.get('image-filter')!, { _existing_input_image: 'old.png', seed: 3 }, 'job_2');
    expect(again.graph['1']!.inputs.image).toBe('old.png');
    expect(again.outputs.map((output) => [output.kind, output.filename_prefix])).toEqual([['final', 'job_2/final/filtered']]);
  });

  it('applies outputs_map keys of dynamic workflows to every instance of the block', () => {
    const definition = definitions.get('txt2img-sdxl-lora')!;
    const withMap = { ...definition, manifest: { ...definition.manifest, outputs_map: { 'save:1': 'preview' as const } } };
    const run = prepareRun(withMap, {}, 'job_3', { random: () => 1 });
    expect(run.outputs.map((output) => output.kind)).toEqual(['preview']);
  });
});
