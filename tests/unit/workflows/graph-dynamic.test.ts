import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BlockTemplate, parseBlock } from '../../../server/workflows/block.schema.js';
import { assembleDynamicGraph } from '../../../server/workflows/graph-dynamic.js';
import { validateApiGraph } from '../../helpers/graph-validate.js';
import { parseManifest } from '../../../server/contracts/workflows.contract.js';
import type { ApiGraph, ObjectInfo } from '../../../server/engine/engine-graph.js';
import { WorkflowBuildError } from '../../../server/workflows/workflow-errors.js';
import { loadDefinition, loadWorkflow, type WorkflowDefinition } from '../../../server/workflows/workflow.store.js';
import { coreObjectInfo, shippedWorkflowsDir } from './helpers.js';

let lora: WorkflowDefinition;
let objectInfo: ObjectInfo;

beforeAll(async () => {
  const entry = await loadWorkflow(shippedWorkflowsDir, 'txt2img-sdxl-lora');
  lora = await loadDefinition(entry!);
  objectInfo = coreObjectInfo();
});

const byClass = (graph: ApiGraph, classType: string) => Object.entries(graph).filter(([, node]) => node.class_type === classType);
const only = (graph: ApiGraph, classType: string) => {
  const nodes = byClass(graph, classType);
  expect(nodes).toHaveLength(1);
  return nodes[0]!;
};

function build(params: Record<string, unknown>): ApiGraph {
  return assembleDynamicGraph(lora.blocks!, lora.manifest, { seed: 11, ...params }).graph;
}

describe('dynamic assembly of txt2img-sdxl-lora', () => {
  it.each([0, 1, 3])('chains %i LoRA block(s) and stays a valid graph', (count) => {
    const loras = Array.from({ length: count }, (_, i) => ({ name: `style_${i}.safetensors`, strength: 0.5 + i / 10 }));
    const graph = build({ loras });

    const ids = Object.keys(graph);
    expect(ids).toEqual(ids.map((_, i) => String(i + 1)));
    expect(validateApiGraph(graph, objectInfo).filter((issue) => issue.severity === 'error')).toEqual([]);

    const [checkpoint] = only(graph, 'CheckpointLoaderSimple');
    const loaders = byClass(graph, 'LoraLoader');
    expect(loaders.map(([, node]) => node.inputs.lora_name)).toEqual(loras.map((item) => item.name));
    let model: unknown = [checkpoint, 0];
    let clip: unknown = [checkpoint, 1];
    loaders.forEach(([id, node], i) => {
      expect(node.inputs.model).toEqual(model);
      expect(node.inputs.clip).toEqual(clip);
      expect(node.inputs.strength_model).toBe(loras[i]!.strength);
      expect(node.inputs.strength_clip).toBe(loras[i]!.strength);
      model = [id, 0];
      clip = [id, 1];
    });
    const [, sampler] = only(graph, 'KSampler');
    expect(sampler.inputs.model).toEqual(model);
    for (const [, encoder] of byClass(graph, 'CLIPTextEncode')) expect(encoder.inputs.clip).toEqual(clip);
    const [, decode] = only(graph, 'VAEDecode');
    expect(decode.inputs.vae).toEqual([checkpoint, 2]);
  });

  it('adds the upscale block only when asked, between decode and save', () => {
    const plain = build({ upscale: false });
    expect(byClass(plain, 'ImageUpscaleWithModel')).toEqual([]);
    expect(only(plain, 'SaveImage')[1].inputs.images).toEqual([only(plain, 'VAEDecode')[0], 0]);

    const upscaled = build({ upscale: true, loras: [{ name: 'a.safetensors' }] });
    const [upscaleId, upscale] = only(upscaled, 'ImageUpscaleWithModel');
    expect(upscale.inputs.image).toEqual([only(upscaled, 'VAEDecode')[0], 0]);
    expect(upscale.inputs.upscale_model).toEqual([only(upscaled, 'UpscaleModelLoader')[0], 0]);
    expect(only(upscaled, 'SaveImage')[1].inputs.images).toEqual([upscaleId, 0]);
    expect(validateApiGraph(upscaled, objectInfo).filter((issue) => issue.severity === 'error')).toEqual([]);
  });

  it('applies params through placeholders and block mappings', () => {
    const graph = build({ positive: 'a castle', width: 832, steps: 12, seed: 99 });
    const [, sampler] = only(graph, 'KSampler');
    expect(sampler.inputs).toMatchObject({ seed: 99, steps: 12 });
    expect(only(graph, 'EmptyLatentImage')[1].inputs).toMatchObject({ width: 832, height: 1024 });
    expect(byClass(graph, 'CLIPTextEncode').map(([, node]) => node.inputs.text)).toContain('a castle');
  });

  it('does not alter the loaded blocks between builds', () => {
    build({ loras: [{ name: 'a.safetensors' }, { name: 'b.safetensors' }] });
    const again = build({});
    expect(byClass(again, 'LoraLoader')).toEqual([]);
    expect(lora.blocks!.lora!.nodes['1']!.inputs.lora_name).toBe('{{item.name}}');
  });

  it('reports origins of every node', () => {
    const { graph, origins } = assembleDynamicGraph(lora.blocks!, lora.manifest, { seed: 1, loras: [{ name: 'a' }, { name: 'b' }] });
    expect(Object.keys(origins)).toEqual(Object.keys(graph));
    expect(Object.values(origins).filter((origin) => origin.block === 'lora').map((origin) => origin.instance)).toEqual([0, 1]);
  });

  it('rejects bad LoRA lists with a 400', () => {
    expect(() => build({ loras: [{ name: '../x.safetensors' }] })).toThrow(WorkflowBuildError);
    expect(() => build({ loras: Array.from({ length: 9 }, (_, i) => ({ name: `${i}` })) })).toThrow('at most 8');
    expect(() => build({ loras: 'a.safetensors' })).toThrow('expected a list');
  });
});

describe('block wiring rules', () => {
  const manifest = parseManifest({
    id: 'w',
    name: 'W',
    type: 'dynamic',
    version: 1,
    date: '2026-11-22 10:00',
    inputs: [{ id: 'flag', type: 'bool', default: false }],
  });
  const block = (raw: unknown, name = 'b'): BlockTemplate => parseBlock(raw, name);

  it('fails when a block imports a name nobody exported, unless optional', () => {
    const needs = block({ nodes: { '1': { class_type: 'VAEDecode', inputs: {} } }, imports: { vae: { node: '1', input: 'vae' } } });
    expect(() => assembleDynamicGraph({ a: needs }, manifest, {}).graph).toThrow('imports "vae", which no earlier block exports');
    const optional = block({
      nodes: { '1': { class_type: 'VAEDecode', inputs: { vae: 'placeholder' } } },
      imports: { vae: { node: '1', input: 'vae', optional: true } },
    });
    expect(assembleDynamicGraph({ a: optional }, manifest, {}).graph['1']!.inputs).toEqual({});
  });

  it('honours when and !when', () => {
    const blocks = {
      a: block({ when: 'flag', nodes: { '1': { class_type: 'A', inputs: {} } } }),
      b: block({ when: '!flag', nodes: { '1': { class_type: 'B', inputs: {} } } }),
    };
    expect(Object.values(assembleDynamicGraph(blocks, manifest, { flag: true }).graph).map((n) => n.class_type)).toEqual(['A']);
    expect(Object.values(assembleDynamicGraph(blocks, manifest, {}).graph).map((n) => n.class_type)).toEqual(['B']);
  });

  it('rewires internal links to the new ids', () => {
    const first = block({ nodes: { '1': { class_type: 'A', inputs: {} } } });
    const second = block({ nodes: { '7': { class_type: 'B', inputs: {} }, '9': { class_type: 'C', inputs: { x: ['7', 1] } } } });
    const graph = assembleDynamicGraph({ a: first, b: second }, manifest, {}).graph;
    expect(graph).toEqual({
      '1': { class_type: 'A', inputs: {} },
      '2': { class_type: 'B', inputs: {} },
      '3': { class_type: 'C', inputs: { x: ['2', 1] } },
    });
  });

  it('validates block files', () => {
    expect(() => block({ nodes: { '1': { class_type: 'A', inputs: { x: ['5', 0] } } } })).toThrow('unknown local node "5"');
    expect(() => block({ nodes: { '1': { class_type: 'A' } }, exports: { m: ['2', 0] } })).toThrow('exports unknown local node');
    expect(() => block({ nodes: {} })).toThrow('at least one node');
  });

  it('names a listed block that does not exist', () => {
    const listed = { ...manifest, blocks: ['ghost'] };
    expect(() => assembleDynamicGraph({}, listed, {}).graph).toThrow('block "ghost"');
  });
});

describe('shipped dynamic workflow files', () => {
  it('is the workflow these tests exercise', () => {
    expect(path.basename(lora.dir)).toBe('txt2img-sdxl-lora');
    expect(Object.keys(lora.blocks!).sort()).toEqual(['base', 'lora', 'sampler', 'save', 'upscale']);
  });
});
