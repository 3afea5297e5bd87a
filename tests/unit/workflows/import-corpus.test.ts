/**
 * The import corpus (`tests/fixtures/workflow-import/corpus/`): workflows written by hand in the
 * engine frontend's formats (schema 0.4 and 1), one per model family and graph feature, each with
 * the API graph the frontend makes of it. Each is converted (as JSON and from a PNG carrying both) and compared node by node with that
 * graph (seed values and input image file names aside, as a run changes them), and its proposed
 * form must have a prompt input on exactly the text fields that feed the positive side, a negative
 * input where there is a negative text (none for a zeroed-out one), and the expected inputs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';
import type { ApiGraph, ObjectInfo } from '../../../server/engine/engine-graph.js';
import { proposeForm } from '../../../server/workflows/import/propose-form.js';
import { readWorkflowFile } from '../../../server/workflows/import/read-workflow-file.js';
import { pngWithText } from '../../fixtures/workflow-import/fixtures.js';

const objectInfo = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'resources', 'standin', 'object_info.comfyui-0.29.0.json'), 'utf8')) as ObjectInfo;
const corpusDir = path.join(APP_ROOT, 'tests', 'fixtures', 'workflow-import', 'corpus');

interface CorpusEntry {
  about: string;
  workflow: Record<string, unknown>;
  prompt: ApiGraph;
  /** `positive_id`: the prompt's input id when App Mode names it (else `positive`). */
  expect: { positive: [string, string][]; negative: [string, string][] | null; inputs: string[]; positive_id?: string };
}

const entries = fs.readdirSync(corpusDir).filter((name) => name.endsWith('.json')).sort();

/** The graph without titles, seeds set to 0 and uploaded image names blanked. */
function comparable(graph: ApiGraph): Record<string, { class_type: string; inputs: Record<string, unknown> }> {
  return Object.fromEntries(Object.entries(graph).map(([id, node]) => {
    const inputs = { ...node.inputs };
    for (const field of ['seed', 'noise_seed']) if (typeof inputs[field] === 'number') inputs[field] = 0;
    const upload = objectInfo[node.class_type]?.input?.required?.image?.[1]?.image_upload === true;
    if (upload && typeof inputs.image === 'string') inputs.image = '<input image>';
    return [id, { class_type: node.class_type, inputs }];
  }));
}

/** The fields an input of the proposed form writes: its node and field, or where its placeholder stands. */
function targetsOf(form: ReturnType<typeof proposeForm>, id: string): [string, string][] {
  const input = form.inputs.find((i) => i.id === id);
  if (!input) return [];
  if (input.node_id !== undefined && input.field !== undefined) return [[String(input.node_id), input.field]];
  const out: [string, string][] = [];
  for (const [node, apiNode] of Object.entries(form.graph)) {
    for (const [field, value] of Object.entries(apiNode.inputs)) if (value === `{{${id}}}`) out.push([node, field]);
  }
  return out;
}

const sorted = (targets: [string, string][]) => targets.map((t) => t.join('/')).sort();

describe('the import corpus', () => {
  it('has a workflow per model family and feature', () => {
    expect(entries).toEqual(expect.arrayContaining(['flux-guider.json', 'sd35-zero-out.json', 'sdxl-dual-text.json', 'wan-i2v.json', 'hunyuan-i2v.json', 'ltx-i2v.json', 'bypass-chain.json', 'nested-subgraph.json', 'group-nodes.json', 'app-mode.json']));
  });

  for (const name of entries) {
    const entry = JSON.parse(fs.readFileSync(path.join(corpusDir, name), 'utf8')) as CorpusEntry;

    it(`${name}: converts as the frontend does, node by node`, () => {
      const read = readWorkflowFile(Buffer.from(JSON.stringify(entry.workflow)), objectInfo);
      const ours = comparable(read.graph);
      const theirs = comparable(entry.prompt);
      expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
      for (const id of Object.keys(theirs)) expect(ours[id], `node ${id}`).toEqual(theirs[id]);
      expect(read.warnings).toEqual([]);
      // The same graph from a PNG the engine saved (the editor's graph and the frontend's prompt as text chunks).
      const png = readWorkflowFile(pngWithText({ prompt: JSON.stringify(entry.prompt), workflow: JSON.stringify(entry.workflow) }), objectInfo);
      expect(png.source).toBe('png');
      expect(comparable(png.graph)).toEqual(ours);
    });

    it(`${name}: proposes a prompt input on the positive text, a negative where there is one`, () => {
      const form = proposeForm(readWorkflowFile(Buffer.from(JSON.stringify(entry.workflow)), objectInfo), objectInfo);
      const prompt = entry.expect.positive_id ?? 'positive';
      expect(sorted(targetsOf(form, prompt))).toEqual(sorted(entry.expect.positive));
      if (entry.expect.negative === null) expect(form.inputs.filter((i) => i.id.startsWith('negative'))).toEqual([]);
      else expect(sorted(targetsOf(form, 'negative'))).toEqual(sorted(entry.expect.negative));
      expect(form.inputs.map((i) => i.id)).toEqual(entry.expect.inputs);
      expect(form.inputs.find((i) => i.id === prompt)).toMatchObject({ type: 'text', multiline: true, ...(entry.expect.positive_id ? {} : { label: 'Prompt' }) });
    });
  }
});
