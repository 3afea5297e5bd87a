/**
 * A lock compared with this Studio: each kind of difference with its here/there and fixes, and
 * none when everything matches (the engine, a package not installed or disabled, the Python
 * packages only when both sides read them, a model with another hash, the workflow's version).
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../server/logging.js';
import { LockService } from '../../../server/provenance/lock.service.js';
import type { Environment } from '../../../server/provenance/environment.js';
import type { JobLock } from '../../../server/contracts/provenance.contract.js';
import type { LockStore } from '../../../server/provenance/lock.store.js';

const H = (c: string) => c.repeat(64);
const lock: JobLock = {
  lock_version: 1,
  prompt_id: 'p1',
  recorded_at: '2026-11-28T10:00:00.000Z',
  studio: { version: '0.1.0' },
  engine: { kind: 'managed', version: '0.29.0', commit: 'a'.repeat(40) },
  node_packages: [{ name: 'pack', repo: 'https://example.org/pack.git', commit: 'c'.repeat(40), disabled: false }],
  python: { packages_sha256: H('1'), packages: 120 },
  models: [{ folder: 'checkpoints', file: 'm.safetensors', sha256: H('2'), size: 10 }],
  workflow: { id: 'wf', name: 'Workflow', version: 3 },
  params: {},
  seeds: { seed: 1 },
  graph_sha256: H('3'),
};

function service(here: { engine?: JobLock['engine']; packages?: JobLock['node_packages']; python?: JobLock['python']; model?: string | null; version?: number | null; catalog?: string | null }) {
  const environment = {
    current: async () => ({ engine: here.engine ?? lock.engine, packages: here.packages ?? lock.node_packages, python: here.python ?? lock.python }),
    model: async () => (here.model === null ? null : { sha256: here.model ?? H('2'), size: 10 }),
  } as unknown as Environment;
  return new LockService({
    store: {} as LockStore,
    environment,
    studioVersion: null,
    workflowVersion: async () => (here.version === undefined ? 3 : here.version),
    catalogSha256: () => (here.catalog === undefined ? undefined : here.catalog),
    logger: silentLogger,
  });
}

describe('lock comparison', () => {
  it('finds nothing on the same box', async () => {
    expect(await service({}).compare(lock)).toEqual([]);
  });

  it('names every kind of difference with its fixes', async () => {
    const diffs = await service({
      engine: { kind: 'managed', version: '0.31.1', commit: 'b'.repeat(40) },
      packages: [],
      python: { packages_sha256: H('9'), packages: 121 },
      model: H('8'),
      version: 4,
      catalog: H('2'),
    }).compare(lock);
    expect(diffs.map((d) => [d.kind, d.what, d.here, d.there])).toEqual([
      ['engine', 'engine', `0.31.1 (${'b'.repeat(10)})`, `0.29.0 (${'a'.repeat(10)})`],
      ['node_package_missing', 'pack', null, 'c'.repeat(40)],
      ['python', "the engine's Python packages", `121 packages (${'9'.repeat(12)})`, `120 packages (${'1'.repeat(12)})`],
      ['model_hash', 'checkpoints/m.safetensors', H('8'), H('2')],
      ['workflow', 'Workflow', '4', '3'],
    ]);
    expect(diffs[1]!.fix[0]).toEqual({ action: 'install_node', label: `Install pack at ccccccc`, request: { method: 'POST', path: '/api/admin/nodes/install', body: { url: 'https://example.org/pack.git', commit: 'c'.repeat(40) } } });
    expect(diffs[3]!.fix.map((f) => f.action)).toEqual(['download_model', 'run_anyway']);
  });

  it('offers no download when the catalog records another file, and compares Python only when both were read', async () => {
    const diffs = await service({ python: { packages_sha256: null, packages: null, skipped: 'stand-in' }, model: null, catalog: H('7') }).compare(lock);
    expect(diffs).toEqual([{ kind: 'model_missing', what: 'checkpoints/m.safetensors', here: null, there: H('2'), fix: [{ action: 'run_anyway', label: 'Run anyway' }] }]);
  });

  it('a disabled package here is a missing one; a workflow not installed has no fix', async () => {
    const diffs = await service({ packages: [{ ...lock.node_packages[0]!, disabled: true }], version: null }).compare(lock);
    expect(diffs.map((d) => [d.kind, d.here, d.fix.length])).toEqual([
      ['node_package_missing', 'disabled', 2],
      ['workflow', null, 0],
    ]);
  });
});
