import fs from 'node:fs';
import path from 'node:path';
import fsp from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkflowBuildError } from '../../../server/workflows/workflow-errors.js';
import { seedWorkflows } from '../../../server/workflows/workflow-seed.store.js';
import { loadDefinition, loadIndex, loadWorkflow, loadWorkflows } from '../../../server/workflows/workflow.store.js';
import { shippedWorkflowsDir, tempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function temp(): string {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  return dir;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const manifestYaml = (id: string, extra = '') =>
  `id: ${id}\nname: ${id}\ntype: static\nversion: 1\ndate: "2026-11-22 10:00"\ninputs:\n  - {id: steps, type: int, default: 5, node_id: 1, field: steps}\n${extra}`;
const workflowJson = '{"1": {"class_type": "KSampler", "inputs": {"steps": "{{steps}}"}}}';

describe('loadWorkflows', () => {
  it('lists good workflows and reports broken ones without failing the list', async () => {
    const dir = temp();
    write(path.join(dir, 'good', 'manifest.yaml'), manifestYaml('good'));
    write(path.join(dir, 'good', 'workflow.json'), workflowJson);
    write(path.join(dir, 'bad-yaml', 'manifest.yaml'), 'id: [unclosed\n');
    write(path.join(dir, 'bad-schema', 'manifest.yaml'), 'id: bad-schema\nname: x\ntype: weird\nversion: 1\ndate: "2026-11-22 10:00"\n');
    write(path.join(dir, 'wrong-id', 'manifest.yaml'), manifestYaml('other'));
    write(path.join(dir, 'no-template', 'manifest.yaml'), manifestYaml('no-template'));
    write(path.join(dir, 'bad-template', 'manifest.yaml'), manifestYaml('bad-template'));
    write(path.join(dir, 'bad-template', 'workflow.json'), '{"1": {');
    write(path.join(dir, 'no-manifest', 'workflow.json'), workflowJson);
    write(path.join(dir, 'dyn', 'manifest.yaml'), 'id: dyn\nname: d\ntype: dynamic\nversion: 1\ndate: "2026-11-22 10:00"\n');
    write(path.join(dir, 'dyn-bad-block', 'manifest.yaml'), 'id: dyn-bad-block\nname: d\ntype: dynamic\nversion: 1\ndate: "2026-11-22 10:00"\n');
    write(path.join(dir, 'dyn-bad-block', 'blocks', 'a.json'), '{"nodes": {"1": {"class_type": "A", "inputs": {"x": ["9", 0]}}}}');
    write(path.join(dir, '.hidden', 'manifest.yaml'), manifestYaml('.hidden'));
    write(path.join(dir, 'index.json'), '{}');

    const entries = await loadWorkflows(dir);
    const byId = Object.fromEntries(entries.map((entry) => [entry.id, entry]));
    expect(Object.keys(byId)).toEqual(['bad-schema', 'bad-template', 'bad-yaml', 'dyn', 'dyn-bad-block', 'good', 'no-manifest', 'no-template', 'wrong-id']);
    expect(byId.good).toMatchObject({ id: 'good', dir: path.join(dir, 'good'), manifest: { name: 'good' } });
    expect(byId.good!.error).toBeUndefined();
    expect(byId['bad-yaml']!.error).toContain('not valid YAML');
    expect(byId['bad-schema']!.error).toContain('type');
    expect(byId['wrong-id']!.error).toContain('differs from the folder name');
    expect(byId['no-template']!.error).toContain('workflow.json is missing');
    expect(byId['no-template']!.manifest?.name).toBe('no-template');
    expect(byId['bad-template']!.error).toContain('not valid JSON');
    expect(byId['no-manifest']!.error).toContain('manifest.yaml is missing');
    expect(byId.dyn!.error).toContain('blocks/');
    expect(byId['dyn-bad-block']!.error).toContain('unknown local node "9"');
  });

  it('parses a workflow file again only when it changed (path, change time, size), not on every list', async () => {
    const dir = temp();
    for (const id of ['one', 'two']) {
      write(path.join(dir, id, 'manifest.yaml'), manifestYaml(id));
      write(path.join(dir, id, 'workflow.json'), workflowJson);
    }
    const read = vi.spyOn(fsp, 'readFile');
    cleanups.push(() => read.mockRestore());
    const graphReads = () => read.mock.calls.map((call) => String(call[0])).filter((file) => file.endsWith('workflow.json'));
    await loadWorkflows(dir);
    expect(graphReads()).toHaveLength(2);
    read.mockClear();
    const again = await loadWorkflows(dir);
    expect(graphReads()).toEqual([]);
    expect(again.map((entry) => [entry.id, entry.error])).toEqual([['one', undefined], ['two', undefined]]);
    // A file replaced (written and renamed, as an import does) is read again; the other is not.
    const tmp = path.join(dir, 'two', '.workflow.json.tmp');
    fs.writeFileSync(tmp, '{"1": {');
    fs.renameSync(tmp, path.join(dir, 'two', 'workflow.json'));
    const changed = await loadWorkflows(dir);
    expect(graphReads()).toEqual([path.join(dir, 'two', 'workflow.json')]);
    expect(changed.find((entry) => entry.id === 'two')!.error).toContain('not valid JSON');
  });

  it('returns an empty list for a missing folder', async () => {
    expect(await loadWorkflows(path.join(temp(), 'nope'))).toEqual([]);
  });

  it('loads one workflow by id and refuses ids that could escape', async () => {
    expect((await loadWorkflow(shippedWorkflowsDir, 'txt2img-sdxl'))?.manifest?.type).toBe('static');
    expect(await loadWorkflow(shippedWorkflowsDir, 'missing')).toBeNull();
    expect(await loadWorkflow(shippedWorkflowsDir, '../workflows')).toBeNull();
    expect(await loadWorkflow(shippedWorkflowsDir, 'index.json')).toBeNull();
  });

  it('refuses to build a broken entry with a 500', async () => {
    const error = await loadDefinition({ id: 'x', dir: '/nowhere', error: 'bad' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowBuildError);
    expect((error as WorkflowBuildError).kind).toBe('broken');
  });
});

describe('loadIndex', () => {
  it('reads a valid index and degrades to version 0 otherwise', async () => {
    expect((await loadIndex(shippedWorkflowsDir)).index.version).toBeGreaterThanOrEqual(1);
    const dir = temp();
    expect(await loadIndex(dir)).toEqual({ index: { version: 0, date: '', workflows: [] }, error: 'index.json missing' });
    write(path.join(dir, 'index.json'), '{"version": "one"}');
    const broken = await loadIndex(dir);
    expect(broken.index.version).toBe(0);
    expect(broken.error).toContain('index.json invalid');
  });
});

describe('seedWorkflows', () => {
  it('copies the shipped tree on first boot and never again', async () => {
    const target = path.join(temp(), 'studio', 'workflows');
    const first = await seedWorkflows(shippedWorkflowsDir, target);
    expect(first.seeded).toBe(true);
    expect(first.copied).toEqual(expect.arrayContaining(['index.json', 'README.md', 'txt2img-sdxl', 'txt2img-sdxl-lora']));
    expect(fs.readFileSync(path.join(target, 'txt2img-sdxl-lora', 'blocks', 'lora.json'), 'utf8')).toBe(
      fs.readFileSync(path.join(shippedWorkflowsDir, 'txt2img-sdxl-lora', 'blocks', 'lora.json'), 'utf8'),
    );
    expect(fs.readdirSync(path.dirname(target))).toEqual(['workflows']);

    fs.rmSync(path.join(target, 'image-filter'), { recursive: true });
    fs.writeFileSync(path.join(target, 'txt2img-sdxl', 'manifest.yaml'), 'user edit');
    expect(await seedWorkflows(shippedWorkflowsDir, target)).toEqual({ seeded: false, copied: [] });
    expect(fs.existsSync(path.join(target, 'image-filter'))).toBe(false);
    expect(fs.readFileSync(path.join(target, 'txt2img-sdxl', 'manifest.yaml'), 'utf8')).toBe('user edit');
  });

  it('completes a folder that has no index, keeping what is there', async () => {
    const target = path.join(temp(), 'workflows');
    write(path.join(target, 'txt2img-sdxl', 'manifest.yaml'), 'mine');
    write(path.join(target, 'my-own', 'manifest.yaml'), 'mine too');
    const result = await seedWorkflows(shippedWorkflowsDir, target);
    expect(result.seeded).toBe(true);
    expect(result.copied).not.toContain('txt2img-sdxl');
    expect(result.copied.at(-1)).toBe('index.json');
    expect(fs.readFileSync(path.join(target, 'txt2img-sdxl', 'manifest.yaml'), 'utf8')).toBe('mine');
    expect(fs.existsSync(path.join(target, 'img2vid-wan', 'workflow.json'))).toBe(true);
    expect(fs.readdirSync(target).filter((name) => name.startsWith('.'))).toEqual([]);
    const entries = await loadWorkflows(target);
    expect(entries.find((entry) => entry.id === 'img2vid-wan')?.error).toBeUndefined();
  });
});
