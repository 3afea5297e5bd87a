/**
 * Point every output node of a graph into the job's folder:
 * `filename_prefix` = `<job folder>/<final|preview|intermediate>/<sanitized base name>`,
 * relative to the engine's output directory (which Studio points at `assets/output`).
 * The classification rules are documented in `workflows/README.md` ("Outputs").
 */
import { linkedSources } from './api-graph.js';
import { sanitizePrefixBase } from './prefix-tokens.js';
import type { OutputKind } from './types.js';
import { type ApiGraph, type ApiNode, isLink, type ObjectInfo } from '../engine/engine-graph.js';

/** Savers whose files are videos; when one is final, image savers become intermediate. */
const VIDEO_SAVERS = new Set(['VHS_VideoCombine', 'SaveVideo', 'SaveWEBM']);
/** Savers whose files are images. */
const IMAGE_SAVERS = new Set(['SaveImage', 'SaveAnimatedWEBP', 'SaveAnimatedPNG']);
const JOB_FOLDER = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export interface RedirectedOutput {
  node_id: string;
  class_type: string;
  kind: OutputKind;
  /** The prefix written into the graph. */
  filename_prefix: string;
}

export interface RedirectOptions {
  /** Lets unknown saver classes with `output_node: false` count as intermediate. */
  objectInfo?: ObjectInfo;
  /** Node id → kind, from the manifest's `outputs_map` (already translated to graph ids). */
  overrides?: Record<string, OutputKind>;
  /** The time `%date:…%` tokens expand to. */
  now?: Date;
}

/** Redirect the outputs of a copy of `graph` into `jobFolder`; the input graph is left as is. */
export function redirectOutputs(
  graph: ApiGraph,
  jobFolder: string,
  options: RedirectOptions = {},
): { graph: ApiGraph; outputs: RedirectedOutput[] } {
  if (!JOB_FOLDER.test(jobFolder) || jobFolder.includes('..')) throw new Error(`invalid job folder name "${jobFolder}"`);
  const out = structuredClone(graph);
  const swapped = new Set<string>();
  for (const [id, node] of Object.entries(out)) {
    // PreviewImage writes to temp/, which the engine wipes at start, and takes no prefix.
    if (node.class_type === 'PreviewImage') {
      out[id] = { ...node, class_type: 'SaveImage', inputs: { ...node.inputs, filename_prefix: 'preview' } };
      swapped.add(id);
    }
  }

  const feeds = linkedSources(out);
  const savers = Object.entries(out).filter(([, node]) => 'filename_prefix' in node.inputs);
  const kinds = new Map<string, { kind: OutputKind; fixed: boolean }>();
  for (const [id, node] of savers) {
    const override = options.overrides?.[id];
    if (override) kinds.set(id, { kind: override, fixed: true });
    else if (swapped.has(id) || (node.class_type === 'VHS_VideoCombine' && node.inputs.save_output === false)) {
      kinds.set(id, { kind: 'preview', fixed: true });
    } else kinds.set(id, classify(id, node, out, feeds, options.objectInfo));
  }
  const videoIsFinal = savers.some(([id, node]) => VIDEO_SAVERS.has(node.class_type) && kinds.get(id)!.kind === 'final');

  const outputs: RedirectedOutput[] = [];
  for (const [id, node] of savers) {
    const { kind, fixed } = kinds.get(id)!;
    const finalKind: OutputKind = !fixed && kind === 'final' && videoIsFinal && !VIDEO_SAVERS.has(node.class_type) ? 'intermediate' : kind;
    const base = sanitizePrefixBase(originalPrefix(id, out, options.objectInfo), options.now);
    const prefix = `${jobFolder}/${finalKind}/${base}`;
    node.inputs.filename_prefix = prefix;
    // VHS writes to temp/ unless save_output is on; the job folder lives in output/.
    if (node.class_type === 'VHS_VideoCombine') node.inputs.save_output = true;
    outputs.push({ node_id: id, class_type: node.class_type, kind: finalKind, filename_prefix: prefix });
  }
  return { graph: out, outputs };
}

function classify(
  id: string,
  node: ApiNode,
  graph: ApiGraph,
  feeds: Set<string>,
  objectInfo: ObjectInfo | undefined,
): { kind: OutputKind; fixed: boolean } {
  const prefix = originalPrefix(id, graph, objectInfo);
  const hint = `${node._meta?.title ?? ''} ${prefix}`.toLowerCase();
  if (hint.includes('intermediate')) return { kind: 'intermediate', fixed: true };
  if (hint.includes('preview')) return { kind: 'preview', fixed: true };
  if (feeds.has(id)) return { kind: 'intermediate', fixed: false };
  if (VIDEO_SAVERS.has(node.class_type) || IMAGE_SAVERS.has(node.class_type)) return { kind: 'final', fixed: false };
  return { kind: objectInfo?.[node.class_type]?.output_node === false ? 'intermediate' : 'final', fixed: false };
}

/** The prefix the workflow asked for: the literal, a linked primitive's value, or the class default. */
function originalPrefix(id: string, graph: ApiGraph, objectInfo: ObjectInfo | undefined): string {
  const node = graph[id]!;
  const value = node.inputs.filename_prefix;
  if (typeof value === 'string') return value;
  if (isLink(value)) {
    const source = graph[String(value[0])];
    const literal = source && ['value', 'string', 'text'].map((key) => source.inputs[key]).find((v) => typeof v === 'string');
    if (typeof literal === 'string') return literal;
  }
  const spec = objectInfo?.[node.class_type]?.input?.required?.filename_prefix;
  const fallback = spec?.[1]?.default;
  return typeof fallback === 'string' ? fallback : node.class_type;
}
