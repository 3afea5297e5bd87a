/**
 * Test helpers for the workflow modules: the real `object_info` fixtures, an independent
 * UI → API conversion written from the frontend's rules (graphToPrompt), and a checker of the
 * UI format's internal consistency. Kept apart from the code under test on purpose.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UiWorkflow } from '../../../server/workflows/types.js';
import type { ApiGraph, InputSpec, ObjectInfo } from '../../../server/engine/engine-graph.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const shippedWorkflowsDir = path.join(repoRoot, 'workflows');
const fixturesDir = path.join(repoRoot, 'tests', 'fixtures', 'engine');

/** `object_info` of the recent core install (October 2025). */
export function coreObjectInfo(): ObjectInfo {
  return JSON.parse(fs.readFileSync(path.join(fixturesDir, 'object_info.core-2025-10.json'), 'utf8')) as ObjectInfo;
}

/** `object_info` of the older install with custom node packs (VideoHelperSuite …). */
export function sampleObjectInfo(): ObjectInfo {
  return JSON.parse(fs.readFileSync(path.join(fixturesDir, 'object_info.sample.json'), 'utf8')) as ObjectInfo;
}

/** Recent core plus the sample's custom-node classes: an engine with VideoHelperSuite installed. */
export function engineObjectInfo(): ObjectInfo {
  const sample = sampleObjectInfo();
  const custom = Object.fromEntries(Object.entries(sample).filter(([, info]) => info.python_module?.startsWith('custom_nodes.')));
  return { ...custom, ...coreObjectInfo() };
}

/** A fresh temp dir, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const WIDGET_TYPES = new Set(['INT', 'FLOAT', 'STRING', 'BOOLEAN', 'COMBO']);

function inputsInOrder(info: ObjectInfo[string]): { name: string; spec: InputSpec; required: boolean }[] {
  const req = info.input?.required ?? {};
  const opt = info.input?.optional ?? {};
  return [
    ...(info.input_order?.required ?? Object.keys(req)).map((name) => ({ name, spec: req[name]!, required: true })),
    ...(info.input_order?.optional ?? Object.keys(opt)).map((name) => ({ name, spec: opt[name]!, required: false })),
  ];
}

/**
 * UI workflow → API graph, the way the engine's frontend does it: each widget's value becomes
 * `inputs[name]`, control widgets and the upload button are skipped, then linked sockets
 * overwrite their input with `[String(origin), slot]`. Throws when `widgets_values` does not
 * line up exactly with the widgets the schema defines.
 */
export function uiToApi(ui: UiWorkflow, objectInfo: ObjectInfo): ApiGraph {
  const graph: ApiGraph = {};
  for (const node of ui.nodes) {
    const info = objectInfo[node.type];
    if (!info) throw new Error(`no schema for ${node.type}`);
    const inputs: Record<string, unknown> = {};
    const ordered = inputsInOrder(info);
    const isWidget = (spec: InputSpec) => (Array.isArray(spec[0]) || WIDGET_TYPES.has(spec[0])) && spec[1]?.forceInput !== true;
    if (Array.isArray(node.widgets_values)) {
      const values = [...node.widgets_values];
      const take = (what: string) => {
        if (values.length === 0) throw new Error(`${node.type}#${node.id}: widgets_values too short at ${what}`);
        return values.shift();
      };
      let upload = false;
      ordered.forEach(({ name, spec, required }, index) => {
        if (isWidget(spec)) {
          inputs[name] = take(name);
          const control = spec[1]?.control_after_generate;
          const isCombo = Array.isArray(spec[0]) || spec[0] === 'COMBO';
          if (spec[0] === 'INT' && (control === true || typeof control === 'string' || (control === undefined && ['seed', 'noise_seed'].includes(name)))) {
            const mode = take(`${name} control`);
            if (!['fixed', 'increment', 'decrement', 'randomize'].includes(String(mode))) throw new Error(`bad control value ${String(mode)}`);
          } else if (isCombo && control) {
            take(`${name} control`);
            take(`${name} filter`);
          }
          if (required && spec[1]?.image_upload) upload = true;
        }
        if (required && ordered[index + 1]?.required !== true && upload) {
          if (take('upload') !== 'image') throw new Error('upload widget value is not "image"');
        }
      });
      if (values.length) throw new Error(`${node.type}#${node.id}: ${values.length} widgets_values left over`);
    } else {
      for (const [name, value] of Object.entries(node.widgets_values)) if (name !== 'videopreview') inputs[name] = value;
    }
    for (const input of node.inputs) {
      if (input.link === null) continue;
      const link = ui.links.find((candidate) => candidate[0] === input.link);
      if (!link) throw new Error(`link ${input.link} missing`);
      inputs[input.name] = [String(link[1]), link[2]];
    }
    graph[String(node.id)] = { class_type: node.type, inputs };
  }
  return graph;
}

/** Internal consistency of a schema-0.4 workflow; returns a list of problems (empty = fine). */
export function checkUiWorkflow(ui: UiWorkflow): string[] {
  const problems: string[] = [];
  const nodes = new Map(ui.nodes.map((node) => [node.id, node]));
  if (ui.version !== 0.4) problems.push('version is not 0.4');
  if (nodes.size !== ui.nodes.length) problems.push('duplicate node ids');
  if (ui.last_node_id !== Math.max(0, ...nodes.keys())) problems.push('last_node_id is not the largest node id');
  if (ui.last_link_id !== Math.max(0, ...ui.links.map((link) => link[0]))) problems.push('last_link_id is not the largest link id');
  if (new Set(ui.links.map((link) => link[0])).size !== ui.links.length) problems.push('duplicate link ids');
  const orders = ui.nodes.map((node) => node.order).sort((a, b) => a - b);
  if (orders.some((order, index) => order !== index)) problems.push('order is not 0..n-1');
  for (const [id, from, fromSlot, to, , type] of ui.links) {
    const source = nodes.get(from);
    const target = nodes.get(to);
    if (!source || !target) {
      problems.push(`link ${id} joins a missing node`);
      continue;
    }
    const output = source.outputs[fromSlot];
    if (!output?.links?.includes(id)) problems.push(`link ${id} not listed on output ${fromSlot} of node ${from}`);
    if (output && output.type !== type && output.type !== '*') problems.push(`link ${id} type ${type} differs from output type ${output.type}`);
    if (!target.inputs.some((input) => input.link === id)) problems.push(`link ${id} not on any input of node ${to}`);
    if (source.order >= target.order) problems.push(`link ${id} runs against execution order`);
  }
  for (const node of ui.nodes) {
    if (node.properties['Node name for S&R'] !== node.type) problems.push(`node ${node.id} lacks "Node name for S&R"`);
    if (node.mode !== 0) problems.push(`node ${node.id} mode is not 0`);
    node.outputs.forEach((output, slot) => {
      if (output.slot_index !== slot) problems.push(`node ${node.id} output ${slot} has slot_index ${output.slot_index}`);
      for (const id of output.links ?? []) {
        const link = ui.links.find((candidate) => candidate[0] === id);
        if (!link || link[1] !== node.id || link[2] !== slot) problems.push(`node ${node.id} output ${slot} lists foreign link ${id}`);
      }
    });
    for (const input of node.inputs) {
      if (input.link === null) continue;
      const link = ui.links.find((candidate) => candidate[0] === input.link);
      if (!link || link[3] !== node.id) problems.push(`node ${node.id} input ${input.name} has foreign link ${input.link}`);
    }
  }
  return problems;
}
