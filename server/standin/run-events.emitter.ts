/**
 * The events of one running prompt, routed like the engine routes them: lifecycle events are
 * recorded for history and go to the prompt's client only; `executing`/`executed` need a client;
 * progress, `progress_state` and previews go to the client, or to every socket without one.
 */
import type { StatusMessage } from './standin.types.js';
import type { WsHub } from './ws.hub.js';

type NodeState = 'running' | 'finished' | 'error';

export class RunEvents {
  readonly messages: StatusMessage[] = [];
  private readonly states = new Map<string, { value: number; max: number; state: NodeState }>();

  constructor(
    private readonly hub: WsHub,
    readonly promptId: string,
    readonly clientId: string | null,
  ) {}

  /** The engine's `add_message`: stamped, kept for history, sent to the client (or to all if broadcast). */
  lifecycle(event: string, data: Record<string, unknown>, broadcast = false): void {
    const stamped = { ...data, timestamp: Date.now() };
    this.messages.push([event, stamped]);
    if (this.clientId !== null || broadcast) this.hub.send(event, stamped, this.clientId);
  }

  /** `executing` / `executed`: not sent at all when the prompt has no client_id. */
  toClient(event: string, data: Record<string, unknown>): void {
    if (this.clientId !== null) this.hub.send(event, data, this.clientId);
  }

  /** `progress`: to the client, or broadcast when the prompt has none. */
  progress(nodeId: string, value: number, max: number): void {
    this.hub.send('progress', { value, max, prompt_id: this.promptId, node: nodeId }, this.clientId);
  }

  /** Update one node and send the full `progress_state` map of every started node. */
  nodeState(nodeId: string, value: number, max: number, state: NodeState): void {
    this.states.set(nodeId, { value, max, state });
    const nodes: Record<string, unknown> = {};
    for (const [id, s] of this.states) {
      nodes[id] = { ...s, node_id: id, prompt_id: this.promptId, display_node_id: id, parent_node_id: null, real_node_id: id };
    }
    this.hub.send('progress_state', { prompt_id: this.promptId, nodes }, this.clientId);
  }

  /**
   * One progress step, in the engine's order: `progress_state`, then a preview with metadata
   * (type 4, to a client that asked for it), then the legacy `progress`, then a plain preview
   * (type 1) for every other client.
   */
  step(nodeId: string, value: number, max: number, image: { bytes: Buffer; png: boolean } | null): void {
    this.nodeState(nodeId, value, max, 'running');
    const withMetadata = this.clientId !== null && this.hub.supportsPreviewMetadata(this.clientId);
    if (image && withMetadata) {
      const meta = {
        node_id: nodeId,
        prompt_id: this.promptId,
        display_node_id: nodeId,
        parent_node_id: null,
        real_node_id: nodeId,
        image_type: image.png ? 'image/png' : 'image/jpeg',
      };
      this.hub.sendFrame(previewWithMetadataFrame(meta, image.bytes), this.clientId);
    }
    this.progress(nodeId, value, max);
    if (image && !withMetadata) this.hub.sendFrame(previewFrame(image.bytes, image.png), this.clientId);
  }
}

/** `[u32 1 PREVIEW_IMAGE][u32 format: 1 JPEG, 2 PNG][bytes]`, big-endian. */
function previewFrame(image: Buffer, png = false): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(png ? 2 : 1, 4);
  return Buffer.concat([header, image]);
}

/** `[u32 4 PREVIEW_IMAGE_WITH_METADATA][u32 m][m bytes JSON][bytes]`, big-endian. */
function previewWithMetadataFrame(meta: Record<string, unknown>, image: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(meta), 'utf8');
  const header = Buffer.alloc(8);
  header.writeUInt32BE(4, 0);
  header.writeUInt32BE(json.length, 4);
  return Buffer.concat([header, json, image]);
}
