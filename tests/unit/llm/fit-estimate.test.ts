/**
 * The fit estimate for a table of model sizes, GPU memory and context sizes, and the GGUF header
 * reading it uses for models on disk.
 */
import { describe, expect, it } from 'vitest';
import { estimateFit, guessLayers, RESERVE_BYTES } from '../../../server/llm/fit/fit-estimate.js';
import { parseShape } from '../../../server/llm/fit/gguf-meta.js';
import { tinyGguf } from '../../../server/llm/runtimes/tiny-gguf.js';

const GB = 1e9;
const GiB = 1024 ** 3;

describe('fit estimate', () => {
  // [model GB, layers, kv width, ctx, free GiB] → [fit, gpu layers]
  const table: Array<[number, number | null, number | null, number, number, 'gpu' | 'partial' | 'cpu', number]> = [
    [4.1, 32, 1024, 4096, 24, 'gpu', 33], // 7B Q4 on a 24 GB card
    [4.1, 32, 1024, 4096, 8, 'gpu', 33], // 7B Q4 on 8 GB: 4.1 + 0.5 KV + 0.5 reserve
    [4.1, 32, 1024, 4096, 4, 'partial', 26], // 7B Q4 on 4 GB: most layers
    [4.1, 32, 1024, 131072, 8, 'partial', 12], // the same model at 128 K context: the KV cache (16 GiB) pushes layers out
    [40, 80, 1024, 8192, 24, 'partial', 47], // 70B Q4 on 24 GB: a little over half
    [40, 80, 1024, 8192, 0, 'cpu', 0], // no GPU
    [40, 80, 1024, 8192, 0.4, 'cpu', 0], // less than the reserve
    [0.47, null, null, 4096, 6, 'gpu', 25], // not downloaded: layers guessed from the size
  ];
  it.each(table)('%s GB, %s layers, kv %s, ctx %s, %s GiB free → %s (%s layers)', (gb, layers, kvWidth, ctx, freeGiB, fit, gpuLayers) => {
    const e = estimateFit({ bytes: gb * GB, layers, kvWidth }, ctx, freeGiB * GiB);
    expect(e.fit).toBe(fit);
    expect(e.gpu_layers).toBe(gpuLayers);
    expect(e.total_layers).toBe((layers ?? guessLayers(gb * GB)) + 1);
    expect(e.reason.length).toBeGreaterThan(10);
  });

  it('needs the weights, the KV cache and the reserve', () => {
    const e = estimateFit({ bytes: 1 * GB, layers: 10, kvWidth: 100 }, 1000, 10 * GiB);
    expect(e.need_bytes).toBe(1 * GB + 10 * 2 * 2 * 100 * 1000 + RESERVE_BYTES);
  });
});

describe('GGUF header shape', () => {
  it('reads block count and K/V width from a real GGUF file', () => {
    expect(parseShape(tinyGguf())).toEqual({ layers: 2, kvWidth: 64 });
  });
  it('gives null for something that is not GGUF, and for a cut header', () => {
    expect(parseShape(Buffer.from('not a model at all, not at all'))).toBeNull();
    expect(() => parseShape(tinyGguf().subarray(0, 200))).toThrow();
  });
});
