/**
 * The boundary where the engine's WebSocket is parsed: what a real engine sends passes, values no
 * engine sends are refused (null), so they never reach progress, job records or Studio's clients.
 */
import { describe, expect, it } from 'vitest';
import { decodePreviewFrame, parseEngineMessage } from '../../../server/engine/engine-messages.js';

const frame = (type: string, data: unknown) => JSON.stringify({ type, data });
const P = 'a1b2c3';

describe('parseEngineMessage', () => {
  it('passes what the engine sends', () => {
    const good: Array<[string, unknown]> = [
      ['status', { status: { exec_info: { queue_remaining: 1 } }, sid: 'x' }],
      ['execution_start', { prompt_id: P, timestamp: 1 }],
      ['execution_cached', { prompt_id: P, nodes: ['1', '2'] }],
      ['executing', { node: '3', display_node: '3', prompt_id: P }],
      ['executing', { node: null, prompt_id: P }],
      ['executing', { node: '3' }],
      ['progress', { value: 4, max: 20, prompt_id: P, node: '3' }],
      ['progress', { value: 20, max: 20, prompt_id: P, node: null }],
      ['progress_state', { prompt_id: P, nodes: { '3': { value: 4, max: 20, state: 'running', node_id: '3', prompt_id: P, display_node_id: '3', parent_node_id: null, real_node_id: '3' } } }],
      ['executed', { node: '9', display_node: '9', prompt_id: P, output: { images: [{ filename: 'a.png', subfolder: '', type: 'output' }], animated: [false] } }],
      ['executed', { node: '9', prompt_id: P, output: null }],
      ['execution_success', { prompt_id: P }],
      ['execution_error', { prompt_id: P, node_id: '3', node_type: 'KSampler', exception_message: 'out of memory', traceback: [] }],
      ['execution_interrupted', { prompt_id: P, node_id: '3', node_type: 'KSampler', executed: [] }],
      ['crystools.monitor', { cpu: 3 }],
    ];
    for (const [type, data] of good) expect(parseEngineMessage(frame(type, data)), type).not.toBeNull();
  });

  it('refuses garbage values', () => {
    const bad: Array<[string, unknown]> = [
      ['progress', { value: 1e308, max: 20, prompt_id: P }],
      ['progress', { value: 4, max: 1e308, prompt_id: P }],
      ['progress', { value: 4, max: Number.MAX_SAFE_INTEGER + 2, prompt_id: P }],
      ['progress', { value: -1, max: 20, prompt_id: P }],
      ['progress', { value: 2.5, max: 20, prompt_id: P }],
      ['progress', { value: 21, max: 20, prompt_id: P }],
      ['progress', { value: '4', max: 20, prompt_id: P }],
      ['progress', { value: 4, max: 20, prompt_id: 7 }],
      ['executed', { node: '9', prompt_id: P, output: { images: 'not a list' } }],
      ['executed', { node: '9', prompt_id: P, output: { text: { a: 1 } } }],
      ['executed', { node: '9', prompt_id: P, output: [] }],
      ['executed', { node: '9', prompt_id: P, output: 'x' }],
      ['executed', { node: 9, prompt_id: P, output: null }],
      ['execution_cached', { prompt_id: P, nodes: '1,2' }],
      ['execution_cached', { prompt_id: P, nodes: [1] }],
      ['executing', { node: 3, prompt_id: P }],
      ['execution_start', {}],
      ['execution_error', { prompt_id: P, node_id: '3', node_type: { x: 1 }, exception_message: 'x' }],
      ['progress_state', { prompt_id: P, nodes: { '3': { value: 1e308, max: 20, state: 'running' } } }],
      ['progress_state', { prompt_id: P, nodes: { '3': { value: 1, max: 20, state: 'exploded' } } }],
      ['progress', []],
    ];
    for (const [type, data] of bad) expect(parseEngineMessage(frame(type, data)), `${type} ${JSON.stringify(data)}`).toBeNull();
  });
});

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const HTML = Buffer.from('<html><script>alert(1)</script></html>');

function type1(format: number, image: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(format, 4);
  return Buffer.concat([header, image]);
}

function type4(meta: Record<string, unknown>, image: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(meta));
  const header = Buffer.alloc(8);
  header.writeUInt32BE(4, 0);
  header.writeUInt32BE(json.length, 4);
  return Buffer.concat([header, json, image]);
}

describe('decodePreviewFrame', () => {
  it('passes previews that are the image they say', () => {
    expect(decodePreviewFrame(type1(1, JPEG), { promptId: P })).toMatchObject({ imageType: 'image/jpeg', promptId: P });
    expect(decodePreviewFrame(type1(2, PNG), {})).toMatchObject({ imageType: 'image/png' });
    expect(decodePreviewFrame(type4({ prompt_id: P, node_id: '3', image_type: 'image/png' }, PNG), {})).toMatchObject({ promptId: P, nodeId: '3' });
  });

  it('refuses frames whose bytes are not an image of the declared type', () => {
    expect(decodePreviewFrame(type1(1, HTML), { promptId: P })).toBeNull();
    expect(decodePreviewFrame(type1(2, JPEG), {})).toBeNull();
    expect(decodePreviewFrame(type1(1, Buffer.alloc(0)), {})).toBeNull();
    expect(decodePreviewFrame(type4({ prompt_id: P, image_type: 'image/png' }, HTML), {})).toBeNull();
    expect(decodePreviewFrame(type4({ prompt_id: P, image_type: 'text/html' }, HTML), {})).toBeNull();
    expect(decodePreviewFrame(type4({ prompt_id: P, image_type: 'image/svg+xml' }, Buffer.from('<svg/>')), {})).toBeNull();
  });
});
