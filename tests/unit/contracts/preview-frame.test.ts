import { describe, expect, it } from 'vitest';
import { decodePreviewFrame, encodePreviewFrame, encodePreviewHead, PREVIEW_FRAME } from '../../../server/contracts/preview-frame.js';

describe('preview frame codec', () => {
  it('lays the frame out as type, header length, JSON header, image', () => {
    const frame = Buffer.from(encodePreviewFrame({ prompt_id: 'p1', node_id: '9', image_type: 'image/png' }, Uint8Array.from([7, 8])));
    expect(frame.readUInt32BE(0)).toBe(PREVIEW_FRAME);
    const length = frame.readUInt32BE(4);
    expect(JSON.parse(frame.subarray(8, 8 + length).toString('utf8'))).toEqual({ prompt_id: 'p1', node_id: '9', image_type: 'image/png' });
    expect([...frame.subarray(8 + length)]).toEqual([7, 8]);
  });

  it('encodes the head the server sends before the image as the frame up to the image', () => {
    const meta = { prompt_id: 'p1', node_id: null, image_type: 'image/webp' };
    const image = Uint8Array.from([5, 6, 7]);
    const frame = encodePreviewFrame(meta, image);
    expect(Buffer.concat([encodePreviewHead(meta), image]).equals(frame)).toBe(true);
  });

  it('decodes what it encodes, from an ArrayBuffer or a view into a larger buffer', () => {
    const encoded = encodePreviewFrame({ prompt_id: null, node_id: null, image_type: 'image/jpeg' }, Uint8Array.from([1, 2, 3]));
    const padded = new Uint8Array(encoded.length + 4);
    padded.set(encoded, 4);
    for (const input of [encoded.slice().buffer, padded.subarray(4)]) {
      const frame = decodePreviewFrame(input);
      expect(frame?.meta).toEqual({ prompt_id: null, node_id: null, image_type: 'image/jpeg' });
      expect([...frame!.image]).toEqual([1, 2, 3]);
    }
  });

  it('refuses other frame types, truncated headers and broken JSON', () => {
    const other = new Uint8Array(12);
    new DataView(other.buffer).setUint32(0, 2);
    expect(decodePreviewFrame(other)).toBeNull();
    expect(decodePreviewFrame(new Uint8Array(5))).toBeNull();
    const cut = encodePreviewFrame({ prompt_id: 'p', node_id: null, image_type: 'x' }, new Uint8Array(0)).subarray(0, 12);
    expect(decodePreviewFrame(cut)).toBeNull();
    const broken = new Uint8Array(11);
    const view = new DataView(broken.buffer);
    view.setUint32(0, PREVIEW_FRAME);
    view.setUint32(4, 3);
    broken.set([123, 120, 120], 8);
    expect(decodePreviewFrame(broken)).toBeNull();
  });
});
