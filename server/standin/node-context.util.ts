/**
 * What a simulated node sees while it runs, and the small readers node behaviours share.
 */
import type { EngineDirs } from '../engine/engine-paths.js';
import type { StandinMedia } from './media.store.js';
import type { ApiGraph, ExtraData, NodeInfo, NodeUi, NodeValue } from './standin.types.js';

/** An input as the node receives it: a literal from the graph, or the value on a link. */
export type ResolvedInput = { kind: 'literal'; value: unknown } | { kind: 'link'; value: NodeValue | undefined };

export interface NodeRunContext {
  nodeId: string;
  classType: string;
  info: NodeInfo;
  inputs: Record<string, ResolvedInput>;
  dirs: EngineDirs;
  media: StandinMedia;
  extraData: ExtraData;
  /** The whole prompt as queued (SaveImage's hidden `prompt` input). */
  graph: ApiGraph;
}

export interface NodeResult {
  outputs: NodeValue[];
  ui: NodeUi | null;
}

/** A node failing at run time; becomes `execution_error` with this exception type and message. */
export class NodeFailure extends Error {
  constructor(
    readonly exceptionType: string,
    message: string,
  ) {
    super(message);
  }
}

/** The first linked input that carries a size (an image, latent, mask or video). */
export function firstSized(ctx: NodeRunContext): NodeValue | undefined {
  for (const input of Object.values(ctx.inputs)) {
    if (input.kind === 'link' && input.value?.width !== undefined) return input.value;
  }
  return undefined;
}

/** A literal input, or the primitive value arriving on a link. */
export function scalar(ctx: NodeRunContext, name: string): unknown {
  const input = ctx.inputs[name];
  if (!input) return undefined;
  return input.kind === 'literal' ? input.value : input.value?.value;
}

/** The value on a linked input. */
export function linked(ctx: NodeRunContext, name: string): NodeValue | undefined {
  const input = ctx.inputs[name];
  return input?.kind === 'link' ? input.value : undefined;
}
