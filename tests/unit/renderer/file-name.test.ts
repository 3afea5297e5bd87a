import { describe, expect, it } from 'vitest';
import { fileNameSegments } from '../../../renderer/src/lib/file-name.js';

describe('fileNameSegments', () => {
  it('cuts after underscores and dashes, and before the extension', () => {
    expect(fileNameSegments('sd_xl_base_1.0.safetensors')).toEqual(['sd_', 'xl_', 'base_', '1.0', '.safetensors']);
    expect(fileNameSegments('4x-UltraSharp.pth')).toEqual(['4x-', 'UltraSharp', '.pth']);
  });

  it('keeps a version number whole', () => {
    expect(fileNameSegments('wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors')).toEqual(['wan2.1_', 'i2v_', '480p_', '14B_', 'fp8_', 'e4m3fn', '.safetensors']);
  });

  it('gives the name back when joined, whatever it is', () => {
    for (const name of ['', 'a', '.hidden', 'x.', '__', 'a/b_c.d-e', 'no-separators-at-all', 'plain']) {
      expect(fileNameSegments(name).join('')).toBe(name);
    }
    expect(fileNameSegments('plain')).toEqual(['plain']);
  });
});
