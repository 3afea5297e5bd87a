/**
 * The stand-in's copy of the engine's `/prompt` validation, against the shipped node set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileLists } from '../../../server/standin/file-lists.store.js';
import { NodeCatalog } from '../../../server/standin/object-info.store.js';
import { validatePrompt, type NodeError, type ValidationResult } from '../../../server/engine/prompt-rules/validator.js';

const inputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-models-'));
fs.mkdirSync(path.join(modelsDir, 'checkpoints', 'sdxl'), { recursive: true });
fs.writeFileSync(path.join(modelsDir, 'checkpoints', 'sdxl', 'base.safetensors'), 'x');
const files = new FileLists(inputDir, new Map([['checkpoints', [path.join(modelsDir, 'checkpoints')]]]));
const catalog = NodeCatalog.builtIn(path.resolve(import.meta.dirname, '../../../resources/standin'), files);
fs.mkdirSync(path.join(inputDir, 'sub'));
fs.writeFileSync(path.join(inputDir, 'sub', 'here.png'), 'x');
const deps = { catalog, fileExists: (name: string) => fs.existsSync(path.join(inputDir, name)) };

afterAll(() => {
  fs.rmSync(inputDir, { recursive: true, force: true });
  fs.rmSync(modelsDir, { recursive: true, force: true });
});

const empty = { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } };
const save = (from: string, prefix = 'out') => ({ class_type: 'SaveImage', inputs: { images: [from, 0], filename_prefix: prefix } });

function failed(result: ValidationResult): { error: Record<string, unknown>; nodeErrors: Record<string, NodeError> } {
  if (result.ok) throw new Error('expected a refused prompt');
  return { error: result.error as unknown as Record<string, unknown>, nodeErrors: result.nodeErrors };
}

describe('stand-in prompt validation', () => {
  it('coerces values like the engine (BOOLEAN "false" is true) and unwraps __value__', () => {
    const result = validatePrompt(
      {
        '1': empty,
        '2': { class_type: 'SaveAnimatedWEBP', inputs: { images: ['1', 0], filename_prefix: 7, fps: '2.5', lossless: 'false', quality: '80', method: { __value__: 'default' } } },
      },
      deps,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.outputs).toEqual(['2']);
    expect(result.graph['2']?.inputs).toEqual({ images: ['1', 0], filename_prefix: '7', fps: 2.5, lossless: true, quality: 80, method: 'default' });
  });

  it('reports invalid_input_type with the Python message', () => {
    const { nodeErrors } = failed(validatePrompt({ '1': { ...empty, inputs: { ...empty.inputs, width: 'abc' } }, '2': save('1') }, deps));
    expect(nodeErrors['1']?.errors[0]).toMatchObject({
      type: 'invalid_input_type',
      message: 'Failed to convert an input value to a INT value',
      details: "width, abc, invalid literal for int() with base 10: 'abc'",
    });
  });

  it('checks short combos, abbreviates long ones, and checks model files against the model folders', () => {
    const { nodeErrors } = failed(
      validatePrompt(
        {
          '1': empty,
          '2': { class_type: 'ImageScale', inputs: { image: ['1', 0], upscale_method: 'bogus', width: 8, height: 8, crop: 'disabled' } },
          '3': save('2'),
          '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sdxl/base.safetensors' } },
          '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
          '6': { class_type: 'KSampler', inputs: { model: ['4', 0], seed: 1, steps: 20, cfg: 7, sampler_name: 'nope', scheduler: 'normal', positive: ['7', 0], negative: ['7', 0], latent_image: ['5', 0], denoise: 1 } },
          '7': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['4', 1] } },
          '8': { class_type: 'VAEDecode', inputs: { samples: ['6', 0], vae: ['4', 2] } },
          '9': save('8', 'kitten'),
          '10': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'missing.safetensors' } },
          '11': { class_type: 'VAEDecode', inputs: { samples: ['5', 0], vae: ['10', 2] } },
          '12': save('11', 'missing'),
        },
        deps,
      ),
    );
    expect(Object.keys(nodeErrors).sort()).toEqual(['10', '2', '6']);
    expect(nodeErrors['10']?.errors[0]).toMatchObject({
      type: 'value_not_in_list',
      details: "ckpt_name: 'missing.safetensors' not in ['sdxl/base.safetensors']",
    });
    expect(nodeErrors['2']?.errors[0]).toMatchObject({
      type: 'value_not_in_list',
      details: "upscale_method: 'bogus' not in ['nearest-exact', 'bilinear', 'area', 'bicubic', 'lanczos']",
    });
    const sampler = nodeErrors['6']?.errors[0];
    expect(sampler?.details).toMatch(/^sampler_name: 'nope' not in \(list of length \d+\)$/);
    expect(sampler?.extra_info.input_config).toBeNull();
    expect(nodeErrors['6']?.dependent_outputs).toEqual(['9']);
  });

  it('reports a type mismatch between linked nodes', () => {
    const { nodeErrors } = failed(validatePrompt({ '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } }, '2': save('1') }, deps));
    expect(nodeErrors['2']?.errors[0]).toMatchObject({
      type: 'return_type_mismatch',
      details: 'images, received_type(MODEL) mismatch input_type(IMAGE)',
    });
  });

  it('turns dangling links into the engine exceptions, on the node that holds the link', () => {
    const onOutput = failed(validatePrompt({ '1': save('99') }, deps));
    expect(onOutput.nodeErrors['1']?.errors[0]).toMatchObject({ type: 'exception_during_validation', details: "'99'", extra_info: { exception_type: 'KeyError' } });

    const upstream = failed(validatePrompt({ '1': { class_type: 'ImageInvert', inputs: { image: ['99', 0] } }, '2': save('1') }, deps));
    expect(Object.keys(upstream.nodeErrors)).toEqual(['1']);
    // Like the engine, input_name and linked_node describe the downstream side of the link.
    expect(upstream.nodeErrors['1']?.errors[0]).toMatchObject({ type: 'exception_during_inner_validation', details: "'99'", extra_info: { input_name: 'images', linked_node: ['1', 0] } });
  });

  it('reports bad links and missing class types', () => {
    const bad = failed(validatePrompt({ '1': empty, '2': { class_type: 'SaveImage', inputs: { images: ['1', 0, 1], filename_prefix: 'x' } } }, deps));
    expect(bad.nodeErrors['2']?.errors[0]).toMatchObject({ type: 'bad_linked_input', details: 'images' });
    const missing = failed(validatePrompt({ '4': { inputs: {} } }, deps));
    expect(missing.error).toMatchObject({ type: 'missing_node_type', extra_info: { node_id: '4', class_type: null } });
  });

  it('queues the valid outputs and returns node_errors for the others', () => {
    const result = validatePrompt({ '1': empty, '2': save('1'), '3': { class_type: 'LoadImage', inputs: { image: 'gone.png' } }, '4': save('3') }, deps);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.outputs).toEqual(['2']);
    expect(result.nodeErrors['3']?.errors[0]?.details).toBe('image - Invalid image file: gone.png');
  });

  it('accepts LoadImage files in subfolders and honours partial_execution_targets', () => {
    const graph = { '1': { class_type: 'LoadImage', inputs: { image: 'sub/here.png' } }, '2': save('1'), '3': save('1', 'b') };
    const result = validatePrompt(graph, deps, ['3']);
    expect(result.ok && result.outputs).toEqual(['3']);
  });

  it('survives a dependency cycle', () => {
    const { nodeErrors } = failed(
      validatePrompt({ '1': { class_type: 'ImageInvert', inputs: { image: ['2', 0] } }, '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } }, '3': save('2') }, deps),
    );
    expect(Object.values(nodeErrors).flatMap((e) => e.errors.map((r) => r.extra_info.exception_type))).toContain('RecursionError');
  });
});
