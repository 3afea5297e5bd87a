/**
 * A refused prompt in words: the engine's node errors become sentences, a missing model file is
 * named (and listed for the page's Download button), and none of the engine's jargon shows.
 */
import { describe, expect, it } from 'vitest';
import { refusalInWords, refusedRun } from '../../../server/jobs/refusal-words.js';

const notInList = (input: string, value: string) => ({
  type: 'value_not_in_list',
  message: 'Value not in list',
  details: `${input}: '${value}' not in ['other.safetensors']`,
  extra_info: { input_name: input, input_config: null, received_value: value },
});
const failed = { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation' };

describe('refusalInWords', () => {
  it('names a missing model and lists it, without the engine text', () => {
    const words = refusalInWords({ error: failed, node_errors: { '4': { class_type: 'CheckpointLoaderSimple', errors: [notInList('ckpt_name', 'sd15.safetensors')] } } });
    expect(words).toEqual({ detail: 'This job cannot run. The model sd15.safetensors is missing: download it, then run again.', missing_models: ['sd15.safetensors'] });
    expect(words.detail).not.toMatch(/failed validation|node 4|not in \[/);
  });

  it('lists several missing models once each, then the other errors', () => {
    const words = refusalInWords({
      error: failed,
      node_errors: {
        '4': { class_type: 'CheckpointLoaderSimple', errors: [notInList('ckpt_name', 'a.safetensors')] },
        '5': { class_type: 'LoraLoader', errors: [notInList('lora_name', 'b.safetensors')] },
        '6': { class_type: 'KSampler', errors: [{ type: 'value_smaller_than_min', message: 'Value 0 smaller than min of 1', details: 'steps', extra_info: { input_name: 'steps' } }, notInList('sampler_name', 'bogus')] },
      },
    });
    expect(words.missing_models).toEqual(['a.safetensors', 'b.safetensors']);
    expect(words.detail).toBe(
      'This job cannot run. These models are missing: a.safetensors, b.safetensors. Download them, then run again. The setting “steps” is too small: the least it takes is 1. The setting “sampler_name” of “KSampler” cannot be “bogus”: the engine does not offer it.',
    );
  });

  it('says which input file is gone, and what a refusal without node errors means', () => {
    const file = refusalInWords({ error: failed, node_errors: { '1': { class_type: 'LoadImage', errors: [{ type: 'custom_validation_failed', message: 'Custom validation failed for node', details: 'image - Invalid image file: gone.png', extra_info: { input_name: 'image' } }] } } });
    expect(file.detail).toBe('This job cannot run. The input file “gone.png” is not there any more: pick or upload it again.');
    const node = refusalInWords({ error: { type: 'missing_node_type', message: "Node 'ImageResizeKJ' not found. The custom node may not be loaded properly." }, node_errors: {} });
    expect(node.detail).toBe('This job cannot run. It uses a node type the engine does not have (ImageResizeKJ): install its node package on the Nodes page.');
  });

  it('keeps the engine body beside the words for programs', () => {
    const body = { error: failed, node_errors: { '4': { class_type: 'CheckpointLoaderSimple', errors: [notInList('ckpt_name', 'x.safetensors')] } } };
    const err = refusedRun(body, 'No engine can run it: this computer does not answer.');
    expect(err.kind).toBe('rejected');
    expect(err.message).toBe('This job cannot run. The model x.safetensors is missing: download it, then run again. No engine can run it: this computer does not answer.');
    expect(err.extra).toEqual({ error: failed, node_errors: body.node_errors, missing_models: ['x.safetensors'] });
  });
});
