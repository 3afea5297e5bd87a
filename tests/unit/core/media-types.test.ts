/** One rule of what a file is by its extension: every user agrees (a `.mkv` is a video everywhere). */
import { describe, expect, it } from 'vitest';
import { isVideoOutput, primaryOutput } from '../../../server/engine/engine-outputs.js';
import { viewContentType } from '../../../server/engine/view-file.js';
import { contentTypeOf, isStoredInZip, mediaKindOf } from '../../../server/media-types.js';

describe('media types', () => {
  it('calls a .mkv a video for the asset listing, the job output and the engine view alike', () => {
    expect(mediaKindOf('clip.MKV')).toBe('video');
    expect(isVideoOutput({ node_id: '1', kind: 'files', filename: 'clip.mkv', subfolder: '', type: 'output' })).toBe(true);
    expect(viewContentType('clip.mkv')).toBe('video/x-matroska');
    expect(isStoredInZip('clip.mkv')).toBe(true);
  });

  it('never calls a hidden file media, in any folder', () => {
    expect(mediaKindOf('.incomplete.png')).toBeNull();
    expect(mediaKindOf('sub/.hidden.mp4')).toBeNull();
    expect(mediaKindOf('sub/shown.mp4')).toBe('video');
  });

  it('gives one Content-Type per extension, octet-stream when unknown', () => {
    expect([contentTypeOf('a.PNG'), contentTypeOf('a.webm'), contentTypeOf('a.avif'), contentTypeOf('a.xyz')]).toEqual(['image/png', 'video/webm', 'image/avif', 'application/octet-stream']);
  });

  it('prefers the video of a finished prompt over its image', () => {
    const out = primaryOutput([
      { node_id: '1', kind: 'images', filename: 'a.png', subfolder: '', type: 'output' },
      { node_id: '2', kind: 'files', filename: 'b.mkv', subfolder: '', type: 'output' },
    ]);
    expect(out?.filename).toBe('b.mkv');
  });
});
