import { describe, expect, it } from 'vitest';
import type { ObjectInfo } from '../../../server/engine/engine-graph.js';
import { nodePackageCount } from '../../../server/nodes/package-count.js';

const schemas = {
  KSampler: { python_module: 'nodes' },
  VAEDecode: { python_module: 'nodes' },
  VHS_LoadVideo: { python_module: 'custom_nodes.ComfyUI-VideoHelperSuite' },
  ImpactWildcard: { python_module: 'custom_nodes.ComfyUI-Impact-Pack' },
} as unknown as ObjectInfo;

describe('nodePackageCount', () => {
  it('counts the packages of a running engine, its built-in nodes as one', async () => {
    expect(await nodePackageCount(() => 'running', async () => schemas)).toBe(3);
  });

  it('answers 0 without asking an engine that does not run', async () => {
    let asked = 0;
    const objectInfo = async () => {
      asked++;
      return schemas;
    };
    for (const status of ['stopped', 'starting', 'crashed', 'unreachable']) expect(await nodePackageCount(() => status, objectInfo)).toBe(0);
    expect(asked).toBe(0);
  });
});
