/**
 * Runs one queued prompt the way the engine's executor does, with the engine's event order
 * (the event order the real engine sends for one prompt, checked against recorded transcripts):
 * cached nodes are skipped; only nodes that report progress in the engine do (samplers and model
 * upscalers 10 steps with a JPEG preview each when a preview method is set, SaveImageWebsocket
 * one step per image with the PNG); output nodes write files; the run ends in
 * `execution_success`, `execution_error` or `execution_interrupted`.
 *
 * Failure switch: any string input literal containing `STANDIN_FAIL` makes that node fail with
 * `RuntimeError: Stand-in failure requested by input <name>` (so clients can test error paths).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logging.js';
import type { EngineDirs } from '../engine/engine-paths.js';
import type { StandinMedia } from './media.store.js';
import { NodeFailure, type NodeRunContext, type ResolvedInput } from './node-context.util.js';
import { runNode } from './node-sim.service.js';
import type { NodeCatalog } from './object-info.store.js';
import { OutputCache, cacheKeys, type CachedOutput } from './output-cache.store.js';
import { fakeTraceback, pyStr } from '../engine/prompt-rules/py-format.js';
import { RunEvents } from './run-events.emitter.js';
import type { ApiGraph, HistoryEntry, NodeInfo, NodeUi, NodeValue, QueueItem } from './standin.types.js';
import type { WsHub } from './ws.hub.js';

export interface ExecutorDeps {
  catalog: NodeCatalog;
  hub: WsHub;
  media: StandinMedia;
  dirs: EngineDirs;
  /** Delay before each of the 10 progress steps of a step node. */
  stepMs: number;
  /** How long every other node takes. */
  nodeMs: number;
  /** Awaited as each node starts (tests hold a node here to pin where a prompt is). */
  beforeNode?: (nodeId: string, promptId: string) => Promise<void>;
  logger: Logger;
  /** Aborted on shutdown: a running prompt stops without a history entry. */
  signal: AbortSignal;
  /** `--preview-method`: previews for prompts that do not choose (default none, like the engine). */
  previewMethod?: string;
}

const FAIL_MARKER = 'STANDIN_FAIL';
const STEPS = 10;

class Interrupted extends Error {
  constructor(
    readonly nodeId: string,
    readonly nodeType: string,
  ) {
    super('Interrupted');
  }
}

export class PromptExecutor {
  private readonly cache = new OutputCache();
  private interruptRequested = false;
  private active: { promptId: string; clientId: string | null; lastNodeId: string | null } | null = null;

  constructor(private readonly deps: ExecutorDeps) {}

  /** Stop the running prompt at its next step or node. */
  interrupt(): void {
    this.interruptRequested = true;
  }

  /** A client reconnected: if its prompt is running, tell it which node runs (no prompt_id, like the engine). */
  resendCurrentNode(sid: string): void {
    if (this.active?.clientId === sid && this.active.lastNodeId !== null) {
      this.deps.hub.send('executing', { node: this.active.lastNodeId }, sid);
    }
  }

  /** Run a queue item to its end and return its history entry. Rejects only on shutdown. */
  async execute(item: QueueItem): Promise<HistoryEntry> {
    const [, promptId, graph, extraData, outputIds] = item;
    const clientId = typeof extraData.client_id === 'string' ? extraData.client_id : null;
    // Like the engine, an interrupt that arrived between prompts is forgotten.
    this.interruptRequested = false;
    this.active = { promptId, clientId, lastNodeId: null };
    const events = new RunEvents(this.deps.hub, promptId, clientId);
    const outputs: Record<string, NodeUi> = {};
    const values = new Map<string, NodeValue[]>();
    const done: string[] = [];
    let currentNode: { id: string; type: string } | null = null;
    let keys = new Map<string, string>();
    // A cached upstream node did not run in this prompt: read its value from the cache.
    const valueOf = (source: string) => values.get(source) ?? this.cache.get(keys.get(source))?.outputs;
    const finish = (id: string, result: CachedOutput, max: number): void => {
      values.set(id, result.outputs);
      if (result.ui) {
        outputs[id] = result.ui;
        events.toClient('executed', { node: id, display_node: id, output: result.ui, prompt_id: promptId });
      }
      events.nodeState(id, max, max, 'finished');
      done.push(id);
    };
    try {
      events.lifecycle('execution_start', { prompt_id: promptId });
      keys = cacheKeys(graph, this.deps.catalog, this.deps.dirs);
      this.cache.retainOnly(keys.values());
      const cachedAtStart = new Set(Object.keys(graph).filter((id) => this.cache.get(keys.get(id))));
      events.lifecycle('execution_cached', { nodes: [...cachedAtStart], prompt_id: promptId });
      const order = executionOrder(graph, outputIds, cachedAtStart);
      const wantsPreviews = previewMethodOf(extraData, this.deps.previewMethod) !== 'none';

      for (const id of order) {
        const node = graph[id] as ApiGraph[string];
        currentNode = { id, type: node.class_type };
        const info = this.deps.catalog.get(node.class_type) as NodeInfo;
        const key = keys.get(id) as string;
        const cached = this.cache.get(key);
        if (cached) {
          // Cached output nodes replay their UI; upstream cached nodes never get here.
          finish(id, cached, 1);
          continue;
        }
        this.active.lastNodeId = id;
        events.nodeState(id, 0, 1, 'running');
        events.toClient('executing', { node: id, display_node: id, prompt_id: promptId });
        this.throwIfInterrupted(id, node.class_type);
        if (this.deps.beforeNode) await this.deps.beforeNode(id, promptId);
        const failing = failRequest(node.inputs);
        if (failing) throw new NodeFailure('RuntimeError', `Stand-in failure requested by input ${failing}`);
        const reporting = progressKind(node.class_type, info);
        let max = 1;
        if (reporting === 'steps') {
          max = STEPS;
          for (let step = 1; step <= STEPS; step += 1) {
            await sleep(this.deps.stepMs, undefined, { signal: this.deps.signal });
            this.throwIfInterrupted(id, node.class_type);
            // Like the engine: sampler previews only when the prompt (or --preview-method) asks.
            events.step(id, step, STEPS, wantsPreviews ? { bytes: this.deps.media.jpeg, png: false } : null);
          }
        } else {
          await sleep(this.deps.nodeMs, undefined, { signal: this.deps.signal });
          if (reporting === 'per-image') {
            // SaveImageWebsocket: `update_absolute(i, n, ("PNG", image))` per image, whatever the preview method.
            max = imagesOf(node.inputs, values);
            for (let i = 0; i < max; i += 1) events.step(id, i, max, { bytes: this.deps.media.png, png: true });
          }
        }
        const result = runNode(this.context(id, node, info, valueOf, extraData, graph));
        this.cache.set(key, result);
        finish(id, result, max);
      }
      events.lifecycle('execution_success', { prompt_id: promptId });
      return historyEntry(item, outputs, events, true);
    } catch (err) {
      if (this.deps.signal.aborted) throw err;
      const node = currentNode ?? { id: '', type: '' };
      if (err instanceof Interrupted) {
        events.lifecycle('execution_interrupted', { prompt_id: promptId, node_id: err.nodeId, node_type: err.nodeType, executed: done }, true);
      } else {
        const failure = err instanceof NodeFailure ? err : new NodeFailure(err instanceof Error ? err.name : 'Exception', String((err as Error)?.message ?? err));
        if (!(err instanceof NodeFailure)) this.deps.logger.error(`stand-in: node ${node.id} failed unexpectedly`, err);
        events.lifecycle('execution_error', {
          prompt_id: promptId,
          node_id: node.id,
          node_type: node.type,
          executed: done,
          exception_message: failure.message,
          exception_type: failure.exceptionType,
          traceback: fakeTraceback('execute', `${node.type}.execute(**inputs)`),
          current_inputs: currentInputs(graph[node.id]?.inputs ?? {}, this.deps.catalog.get(node.type), {
            value: valueOf,
            graph,
            extraData,
            nodeId: node.id,
          }),
          current_outputs: [...values.keys()],
        });
      }
      return historyEntry(item, outputs, events, false);
    } finally {
      this.active = null;
    }
  }

  private throwIfInterrupted(nodeId: string, nodeType: string): void {
    if (this.interruptRequested) throw new Interrupted(nodeId, nodeType);
  }

  private context(
    id: string,
    node: ApiGraph[string],
    info: NodeInfo,
    valueOf: (source: string) => NodeValue[] | undefined,
    extraData: Record<string, unknown>,
    graph: ApiGraph,
  ): NodeRunContext {
    const inputs: Record<string, ResolvedInput> = {};
    for (const [name, value] of Object.entries(node.inputs)) {
      if (isLink(value)) {
        inputs[name] = { kind: 'link', value: valueOf(value[0])?.[value[1]] };
      } else {
        inputs[name] = { kind: 'literal', value };
      }
    }
    return { nodeId: id, classType: node.class_type, info, inputs, dirs: this.deps.dirs, media: this.deps.media, extraData, graph };
  }
}

/** Nodes to run, dependencies first: every output node, and the uncached nodes they need. */
function executionOrder(graph: ApiGraph, outputIds: readonly string[], cached: ReadonlySet<string>): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string): void => {
    if (seen.has(id) || !Object.hasOwn(graph, id)) return;
    seen.add(id);
    if (!cached.has(id)) {
      for (const value of Object.values(graph[id]?.inputs ?? {})) {
        if (isLink(value)) visit(value[0]);
      }
    }
    order.push(id);
  };
  for (const id of outputIds) visit(id);
  // Cached non-output nodes were only visited to stop the walk; they do not run.
  const outputs = new Set(outputIds);
  return order.filter((id) => outputs.has(id) || !cached.has(id));
}

/**
 * Whether a node reports progress in the engine: samplers (classes named `*Sampler*` that return a
 * LATENT) and model upscalers report steps; SaveImageWebsocket reports one step per image; every
 * other node reports none, so a graph without them sends no `progress` at all.
 */
function progressKind(classType: string, info: NodeInfo | undefined): 'steps' | 'per-image' | null {
  if (classType === 'SaveImageWebsocket') return 'per-image';
  if (classType === 'ImageUpscaleWithModel') return 'steps';
  if (classType.includes('Sampler') && (info?.output ?? []).includes('LATENT')) return 'steps';
  return null;
}

/** Images in the batch on a node's `images` link (1 when unknown). */
function imagesOf(inputs: Record<string, unknown>, values: Map<string, NodeValue[]>): number {
  const link = inputs.images;
  return isLink(link) ? Math.max(1, values.get(link[0])?.[link[1]]?.batch ?? 1) : 1;
}

function failRequest(inputs: Record<string, unknown>): string | null {
  for (const [name, value] of Object.entries(inputs)) {
    if (typeof value === 'string' && value.includes(FAIL_MARKER)) return name;
  }
  return null;
}

function isLink(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';
}

/** What `current_inputs` needs besides the node's own inputs. */
interface InputsContext {
  /** The outputs of an upstream node (ran in this prompt or cached). */
  value(source: string): NodeValue[] | undefined;
  graph: ApiGraph;
  extraData: Record<string, unknown>;
  nodeId: string;
}

/**
 * `current_inputs` of an execution_error like the engine's `format_value`: `{name: [value]}` with
 * plain values as they are and everything else as text, hidden inputs (`prompt`, `extra_pnginfo`,
 * `unique_id`) included.
 */
function currentInputs(inputs: Record<string, unknown>, info: NodeInfo | undefined, ctx: InputsContext): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const shown = (value: unknown): unknown => (value === null || value === undefined ? null : ['string', 'number', 'boolean'].includes(typeof value) ? value : pyStr(value));
  for (const [name, value] of Object.entries(inputs)) {
    if (isLink(value)) {
      const v = ctx.value(value[0])?.[value[1]];
      out[name] = [v?.value ?? (v ? `${v.type}${v.width !== undefined ? ` ${v.width}x${v.height}` : ''} (stand-in)` : null)];
    } else {
      out[name] = [shown(value)];
    }
  }
  for (const [name, kind] of Object.entries(info?.input?.hidden ?? {})) {
    const type = Array.isArray(kind) ? kind[0] : kind;
    if (type === 'PROMPT') out[name] = [pyStr(ctx.graph)];
    else if (type === 'EXTRA_PNGINFO') out[name] = [shown(ctx.extraData.extra_pnginfo)];
    else if (type === 'UNIQUE_ID') out[name] = [ctx.nodeId];
  }
  return out;
}

function historyEntry(item: QueueItem, outputs: Record<string, NodeUi>, events: RunEvents, success: boolean): HistoryEntry {
  const meta: HistoryEntry['meta'] = {};
  for (const id of Object.keys(outputs)) meta[id] = { node_id: id, display_node: id, parent_node: null, real_node_id: id };
  return {
    prompt: item,
    outputs,
    status: { status_str: success ? 'success' : 'error', completed: success, messages: events.messages },
    meta,
  };
}

/** The prompt's `extra_data.preview_method`, else the server default (the engine's is none). */
function previewMethodOf(extraData: Record<string, unknown>, serverDefault: string | undefined): string {
  const asked = extraData.preview_method;
  return typeof asked === 'string' && asked !== 'default' ? asked : (serverDefault ?? 'none');
}
