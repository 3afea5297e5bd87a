/**
 * Runs one queued prompt the way the engine's executor does, with the engine's event order
 * (engine-protocol.md §2 "Event order for one prompt"): cached nodes are skipped, step nodes
 * report 10 progress steps with a JPEG preview each, output nodes write files, and the run ends
 * in `execution_success`, `execution_error` or `execution_interrupted`.
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
import { inputDefs, type NodeCatalog } from './object-info.store.js';
import { OutputCache, cacheKeys } from './output-cache.store.js';
import { fakeTraceback, pyStr } from './py-format.util.js';
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
  logger: Logger;
  /** Aborted on shutdown: a running prompt stops without a history entry. */
  signal: AbortSignal;
  /** `--preview-method`: previews for prompts that do not choose (default none, like the engine). */
  previewMethod?: string;
}

export const FAIL_MARKER = 'STANDIN_FAIL';
const STEPS = 10;
/** Nodes without steps still take a moment, like quick real nodes do. */
const QUICK_NODE_MS = 5;

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
    try {
      events.lifecycle('execution_start', { prompt_id: promptId });
      const keys = cacheKeys(graph, this.deps.catalog, this.deps.dirs);
      const cachedAtStart = new Set(Object.keys(graph).filter((id) => this.cache.get(keys.get(id))));
      events.lifecycle('execution_cached', { nodes: [...cachedAtStart], prompt_id: promptId });
      const order = executionOrder(graph, outputIds, cachedAtStart);
      const stepNodes = pickStepNodes(order.filter((id) => !cachedAtStart.has(id)), graph, this.deps.catalog);

      for (const id of order) {
        const node = graph[id] as ApiGraph[string];
        currentNode = { id, type: node.class_type };
        const info = this.deps.catalog.get(node.class_type) as NodeInfo;
        const key = keys.get(id) as string;
        const cached = this.cache.get(key);
        if (cached) {
          // Cached output nodes replay their UI; upstream cached nodes never get here.
          values.set(id, cached.outputs);
          if (cached.ui) {
            outputs[id] = cached.ui;
            events.toClient('executed', { node: id, display_node: id, output: cached.ui, prompt_id: promptId });
          }
          events.nodeState(id, 1, 1, 'finished');
          done.push(id);
          continue;
        }
        this.active.lastNodeId = id;
        events.nodeState(id, 0, 1, 'running');
        events.toClient('executing', { node: id, display_node: id, prompt_id: promptId });
        this.throwIfInterrupted(id, node.class_type);
        const failing = failRequest(node.inputs);
        if (failing) throw new NodeFailure('RuntimeError', `Stand-in failure requested by input ${failing}`);
        if (stepNodes.has(id)) {
          for (let step = 1; step <= STEPS; step += 1) {
            await sleep(this.deps.stepMs, undefined, { signal: this.deps.signal });
            this.throwIfInterrupted(id, node.class_type);
            events.progress(id, step, STEPS);
            events.nodeState(id, step, STEPS, 'running');
            // Like the engine: sampler previews only when the prompt (or --preview-method) asks.
            if (previewMethodOf(extraData, this.deps.previewMethod) !== 'none') events.preview(id, this.deps.media.jpeg);
          }
        } else {
          await sleep(Math.min(QUICK_NODE_MS, this.deps.stepMs), undefined, { signal: this.deps.signal });
        }
        const result = runNode(this.context(id, node, info, values, keys, extraData));
        this.cache.set(key, result);
        values.set(id, result.outputs);
        if (result.ui) {
          outputs[id] = result.ui;
          events.toClient('executed', { node: id, display_node: id, output: result.ui, prompt_id: promptId });
        }
        const max = stepNodes.has(id) ? STEPS : 1;
        events.nodeState(id, max, max, 'finished');
        done.push(id);
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
          current_inputs: currentInputs(graph[node.id]?.inputs ?? {}, values),
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
    values: Map<string, NodeValue[]>,
    keys: Map<string, string>,
    extraData: Record<string, unknown>,
  ): NodeRunContext {
    const inputs: Record<string, ResolvedInput> = {};
    for (const [name, value] of Object.entries(node.inputs)) {
      if (isLink(value)) {
        const [source, slot] = value;
        // A cached upstream node did not run in this prompt: read its value from the cache.
        const sourceValues = values.get(source) ?? this.cache.get(keys.get(source))?.outputs;
        inputs[name] = { kind: 'link', value: sourceValues?.[slot] };
      } else {
        inputs[name] = { kind: 'literal', value };
      }
    }
    return { nodeId: id, classType: node.class_type, info, inputs, dirs: this.deps.dirs, media: this.deps.media, extraData };
  }
}

/** Nodes to run, dependencies first: every output node, and the uncached nodes they need. */
export function executionOrder(graph: ApiGraph, outputIds: readonly string[], cached: ReadonlySet<string>): string[] {
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
 * Nodes that report 10 progress steps: samplers, image-to-video, upscalers, and anything with a
 * seed. A prompt without one still gets one (its first non-output, non-loader node), so every
 * uncached prompt takes about 10 × stepMs like a real generation would take a while.
 */
export function pickStepNodes(toRun: readonly string[], graph: ApiGraph, catalog: NodeCatalog): Set<string> {
  const isLoader = (cls: string) => cls.includes('Loader') || cls.startsWith('Load');
  const isOutput = (id: string) => catalog.get(graph[id]?.class_type ?? '')?.output_node === true;
  const steps = new Set(
    toRun.filter((id) => {
      const node = graph[id];
      if (!node || isLoader(node.class_type)) return false;
      if (/Sampler|ImageToVideo|Upscale/.test(node.class_type)) return true;
      const info = catalog.get(node.class_type);
      const names = new Set([...Object.keys(node.inputs), ...(info ? inputDefs(info).map((d) => d.name) : [])]);
      return names.has('seed') || names.has('noise_seed');
    }),
  );
  if (steps.size > 0 || toRun.length === 0) return steps;
  const fallback =
    toRun.find((id) => !isOutput(id) && !isLoader(graph[id]?.class_type ?? '')) ?? toRun.find((id) => !isOutput(id)) ?? toRun[0];
  return new Set(fallback === undefined ? [] : [fallback]);
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

/** `current_inputs` of an execution_error: `{name: [value]}`, tensors shown as text like the engine. */
function currentInputs(inputs: Record<string, unknown>, values: Map<string, NodeValue[]>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (isLink(value)) {
      const v = values.get(value[0])?.[value[1]];
      out[name] = [v?.value ?? (v ? `${v.type}${v.width !== undefined ? ` ${v.width}x${v.height}` : ''} (stand-in)` : null)];
    } else {
      out[name] = [value === null || ['string', 'number', 'boolean'].includes(typeof value) ? value : pyStr(value)];
    }
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
