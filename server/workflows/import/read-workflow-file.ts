/**
 * An uploaded workflow file, whatever form it comes in, → the API graph the engine runs plus the
 * editor's graph when there is one (it carries titles and App Mode data the form proposal uses):
 * the editor's UI JSON, the API-format JSON, or a PNG/WebP carrying a `workflow`/`prompt` text
 * (the editor's graph is preferred; the `prompt` is the fallback). Anything else is a 400 that
 * says what is wrong.
 */
import { type ApiGraph, isLink, type ObjectInfo } from '../../engine/engine-graph.js';
import { sniffKind } from '../../http/file-sniff.js';
import { embeddedTexts } from './embedded-metadata.js';
import { modelHashes } from './model-match.js';
import { invalid, isObject, isUiWorkflow, readUiGraph, type UiGraphRef } from './ui-graph.js';
import { uiToApiGraph, type ConvertResult } from './ui-to-api.js';

export type ImportSource = 'ui' | 'api' | 'png' | 'webp';

export interface ReadWorkflow {
  graph: ApiGraph;
  /** The editor's graph, when the file carried one. */
  ui?: UiGraphRef;
  /** Primitive nodes of the editor's graph and the API inputs each one fills. */
  primitives?: ConvertResult['primitives'];
  source: ImportSource;
  /** SHA-256 sums the editor recorded for the workflow's model files, by file name. */
  modelHashes?: Map<string, string>;
  warnings: string[];
}

export function readWorkflowFile(bytes: Buffer, objectInfo: ObjectInfo): ReadWorkflow {
  const kind = sniffKind(bytes);
  if (kind === 'png' || kind === 'webp') return fromImage(bytes, kind, objectInfo);
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalid(`not a workflow: the file is neither JSON nor a PNG/WebP image (${(error as Error).message})`);
  }
  return fromJson(parsed, objectInfo, 'the file');
}

function fromImage(bytes: Buffer, kind: 'png' | 'webp', objectInfo: ObjectInfo): ReadWorkflow {
  const texts = embeddedTexts(bytes);
  for (const key of ['workflow', 'prompt'] as const) {
    const text = texts[key];
    if (text === undefined) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    const read = fromJson(parsed, objectInfo, `the image's "${key}" text`);
    return { ...read, source: kind };
  }
  throw invalid(`not a workflow: the ${kind.toUpperCase()} image carries no "workflow" or "prompt" text (was it saved by the engine with metadata on?)`);
}

function fromJson(parsed: unknown, objectInfo: ObjectInfo, what: string): ReadWorkflow {
  if (isUiWorkflow(parsed)) {
    const ui = readUiGraph(parsed);
    if (ui.nodes.size === 0) throw invalid(`not a workflow: ${what} has no nodes`);
    const { graph, primitives, warnings } = uiToApiGraph(ui, objectInfo);
    if (Object.keys(graph).length === 0) throw invalid(`not a workflow: every node of ${what} is muted, bypassed or a note`);
    return { graph, ui, primitives, source: 'ui', modelHashes: modelHashes(parsed), warnings };
  }
  if (isObject(parsed) && Object.keys(parsed).length > 0 && Object.values(parsed).every((node) => isObject(node) && ('class_type' in node || 'inputs' in node))) {
    return { graph: readApiGraph(parsed), source: 'api', warnings: [] };
  }
  throw invalid(`not a workflow: ${what} is JSON but neither the editor's format (a "nodes" list) nor the API format (nodes keyed by id with "class_type" and "inputs")`);
}

/** Check an API-format graph: every node has a class and inputs, every link reaches a node. */
function readApiGraph(raw: Record<string, unknown>): ApiGraph {
  const graph: ApiGraph = {};
  for (const [id, value] of Object.entries(raw)) {
    const node = value as Record<string, unknown>;
    if (typeof node.class_type !== 'string' || node.class_type.trim() === '') throw invalid(`node ${id} has no class (its "class_type" is missing)`);
    if (!isObject(node.inputs)) throw invalid(`node ${id} (${node.class_type}) has no "inputs" object`);
    graph[id] = { class_type: node.class_type, inputs: { ...node.inputs }, ...(isObject(node._meta) ? { _meta: { ...node._meta } } : {}) };
  }
  for (const [id, node] of Object.entries(graph)) {
    for (const [name, value] of Object.entries(node.inputs)) {
      if (isLink(value) && !graph[String(value[0])]) throw invalid(`node ${id} input "${name}" links to node ${String(value[0])}, which the workflow lacks`);
    }
  }
  return graph;
}
