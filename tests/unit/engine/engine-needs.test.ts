/** What a graph needs of an engine: node types and the model files its loaders name. */
import { describe, expect, it } from 'vitest';
import { checkpointOf, inputFilesOf, missingFor } from '../../../server/engine/pool/engine-needs.js';
import type { ApiGraph, ObjectInfo } from '../../../server/engine/engine-graph.js';

const info: ObjectInfo = {
  CheckpointLoaderSimple: { input: { required: { ckpt_name: [['a.safetensors']] } } },
  LoraLoader: { input: { required: { lora_name: ['COMBO', { options: ['l.safetensors'] }] } } },
  LoadImage: { input: { required: { image: [['x.png']] } } },
  CLIPTextEncode: { input: { required: { text: ['STRING'] } } },
};

const graph = (nodes: Record<string, [string, Record<string, unknown>]>): ApiGraph =>
  Object.fromEntries(Object.entries(nodes).map(([id, [class_type, inputs]]) => [id, { class_type, inputs }]));

describe('missingFor', () => {
  it('is empty when the engine has every node and model', () => {
    const g = graph({ 1: ['CheckpointLoaderSimple', { ckpt_name: 'a.safetensors' }], 2: ['LoraLoader', { lora_name: 'l.safetensors' }], 3: ['CLIPTextEncode', { text: 'a cat.safetensors' }] });
    expect(missingFor(g, info)).toEqual([]);
  });

  it('names the missing node types and model files, not input images or free text', () => {
    const g = graph({
      1: ['CheckpointLoaderSimple', { ckpt_name: 'b.safetensors' }],
      2: ['LoraLoader', { lora_name: 'm.safetensors' }],
      3: ['UpscaleModelLoader', { model_name: 'x.pth' }],
      4: ['LoadImage', { image: 'not-there.png' }],
    });
    expect(missingFor(g, info)).toEqual(['model b.safetensors', 'model m.safetensors', 'node UpscaleModelLoader']);
  });

  it('finds the checkpoint and the input files', () => {
    const g = graph({ 1: ['CheckpointLoaderSimple', { ckpt_name: 'a.safetensors' }], 2: ['LoadImage', { image: 'sub/cat.png' }], 3: ['LoadImage', { image: 'old.png [output]' }] });
    expect(checkpointOf(g)).toBe('a.safetensors');
    expect(inputFilesOf(g)).toEqual(['sub/cat.png']);
  });
});
