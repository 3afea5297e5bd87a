/**
 * An API-format import while the engine is down: the engine's built-in node types are known from
 * the node dump Studio ships, so they are not listed as packages to install (the workflow would
 * never be ready); a type neither built in nor mapped is still named, with a warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { classicApi } from '../../fixtures/workflow-import/fixtures.js';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ startEngine: false });
});

afterAll(async () => {
  await t?.stop();
});

describe('importing with the engine down', () => {
  it('takes the built-in node types for the engine\'s own and names only the rest', async () => {
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify({ ...classicApi(), '20': { class_type: 'MysteryNode', inputs: { image: ['8', 0] } } })]), 'offline.json');
    const res = await t.api('/api/admin/workflows/import', { method: 'POST', body: form });
    const body = (await res.json()) as { manifest: { required_nodes: string[]; inputs: { id: string }[] }; warnings: string[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.manifest.required_nodes).toEqual(['MysteryNode']);
    expect(body.warnings.join('\n')).toMatch(/engine did not answer/);
    expect(body.manifest.inputs.map((i) => i.id)).toContain('positive');
  });
});
