/**
 * The engine's WebSocket as its clients know it (`/ws?clientId=`), served over the whole pool: every
 * engine's messages about a door prompt go, in the order that engine sent them, to the sockets of
 * the client that submitted it (and of the same person), whichever engine runs it; previews too,
 * as the engine's binary frames. Studio's own `status` replaces the engines' (its queue is the
 * one that counts). A client that (re)connects gets the end of each of its prompts that finished
 * while it was away, built from what Studio recorded: after a Studio restart too.
 */
import crypto from 'node:crypto';
import type http from 'node:http';
import WebSocket from 'ws';
import type { EngineMessage, EnginePreview } from '../engine/engine-messages.js';
import type { EngineSocket } from '../engine/engine-socket.js';
import { mayTouch, type Actor } from '../http/actor.js';
import { clientAddress } from '../http/authenticator.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { Logger } from '../logging.js';
import { finalMessage, isFinished, type ComfyApiService } from './comfy-api.service.js';
import type { ComfyPrompt, ComfyPromptStore } from './comfy-prompts.store.js';

/** Messages after which a prompt has nothing more to say. */
const FINAL = new Set(['execution_success', 'execution_error', 'execution_interrupted']);
/** How long after a job's end the door waits for the engine's own last message before it makes one. */
const FINAL_GRACE_MS = 400;

interface Client {
  ws: WebSocket;
  actor: Actor;
  clientId: string;
  /** The client's address (Studio caps the sockets one address holds). */
  address: string;
  /** It sent the feature flags asking for previews with metadata (binary type 4). */
  metadata: boolean;
}

/** A door prompt as the relay routes it: the client's id for it, its client and owner. */
interface Door {
  promptId: string;
  clientId: string | null;
  ownerId: string;
}

export interface ComfyRelayDeps {
  store: ComfyPromptStore;
  service: Pick<ComfyApiService, 'status' | 'entryOf'>;
  job: (promptId: string) => JobRecord | null;
  enabled: () => boolean;
  /** Whether Studio is about to run the prompt again (a restart stalled it): its end is not the end. */
  resuming: (promptId: string) => boolean;
  logger: Logger;
  /** How often every client hears the queue's state (clients reconnect after ~10 s of silence). */
  keepaliveMs?: number;
}

export class ComfyRelay {
  private readonly clients = new Map<string, Set<Client>>();
  /** Per engine, the prompt it runs (a preview or a re-sent `executing` carries no id). */
  private readonly running = new Map<string, string>();
  /** Door prompts by id (who sent them), cached: the relay asks for every message. */
  private readonly known = new Map<string, Door>();
  /**
   * An engine's last message for a prompt whose Studio job has not finished yet (its outputs are
   * still being collected), and what the engine sent after it (`executing` null): held until it
   * has, so that a client asking `/history/{id}` on hearing it finds the entry, as the engine
   * answers once it has sent it.
   */
  private readonly heldFinal = new Map<string, string[]>();
  private readonly timer: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly deps: ComfyRelayDeps) {
    this.timer = setInterval(() => this.broadcastStatus(), deps.keepaliveMs ?? 5_000);
    this.timer.unref();
  }

  /** Listen to one engine of the pool; returns the way to stop. */
  attach(engineId: string, feed: Pick<EngineSocket, 'onMessage' | 'onPreview'>): () => void {
    const offs = [feed.onMessage((msg) => this.onMessage(engineId, msg)), feed.onPreview((preview) => this.onPreview(engineId, preview))];
    return () => offs.forEach((off) => off());
  }

  /** A client's socket, admitted by Studio's authentication. */
  connect(ws: WebSocket, req: http.IncomingMessage, actor: Actor): void {
    if (!this.deps.enabled()) return void ws.close(1008, 'The engine API is off');
    const asked = new URL(req.url ?? '/', 'http://door').searchParams.get('clientId');
    const clientId = asked && asked.length <= 200 ? asked : crypto.randomUUID().replace(/-/g, '');
    const client: Client = { ws, actor, clientId, address: clientAddress(req), metadata: false };
    const set = this.clients.get(clientId) ?? new Set<Client>();
    set.add(client);
    this.clients.set(clientId, set);
    ws.on('message', (data, binary) => {
      if (binary) return;
      try {
        const msg = JSON.parse(String(data)) as { type?: unknown; data?: { supports_preview_metadata?: unknown } };
        if (msg.type === 'feature_flags') client.metadata = msg.data?.supports_preview_metadata === true;
      } catch {
        // The engine ignores what it cannot read.
      }
    });
    ws.on('close', () => {
      set.delete(client);
      if (set.size === 0) this.clients.delete(clientId);
    });
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ type: 'status', data: { status: this.deps.service.status(actor, clientId), sid: clientId } }));
    void this.replayFinished(clientId, client);
  }

  /** A job changed: every client hears the queue's state, and a door prompt that ended gets its last message. */
  jobChanged(job: JobRecord): void {
    const door = this.doorPrompt(job.prompt_id);
    if (!door) return;
    if (!isFinished(job)) return this.broadcastStatus();
    // The engine's own last message, held until now: the job's entry is there for the client.
    const held = this.heldFinal.get(job.prompt_id);
    this.heldFinal.delete(job.prompt_id);
    const now = this.deps.store.byJob(job.prompt_id);
    if (held && now && !now.told_final && !this.deps.resuming(now.prompt_id) && held.map((text) => this.send(door, text)).some(Boolean)) this.deps.store.toldFinal(now.prompt_id);
    // The queue's new state after the prompt's last message, as the engine orders them (a client
    // that hears the prompt gone from the queue before its end takes it for lost).
    setTimeout(() => {
      if (this.stopped) return;
      // Still the prompt's job (not resubmitted meanwhile), and not one Studio is about to run again.
      const prompt = this.deps.store.byJob(job.prompt_id);
      const replay = prompt && !prompt.told_final && prompt.client_id && !this.deps.resuming(prompt.prompt_id) ? this.replayFinished(prompt.client_id, null, [prompt]) : Promise.resolve();
      void replay.catch(() => undefined).then(() => !this.stopped && this.broadcastStatus());
    }, FINAL_GRACE_MS).unref();
  }

  /** How many of the door's sockets `address` holds. */
  countFrom(address: string): number {
    let n = 0;
    for (const set of this.clients.values()) for (const c of set) if (c.address === address) n++;
    return n;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const set of this.clients.values()) for (const c of set) c.ws.close(1001, 'Studio is stopping');
    this.clients.clear();
  }

  private onMessage(engineId: string, msg: EngineMessage): void {
    const type = msg.type === 'other' ? msg.engineType : msg.type;
    if (type === 'status' || type === 'feature_flags') return;
    const data = (msg.data ?? {}) as Record<string, unknown>;
    let promptId = typeof data.prompt_id === 'string' ? data.prompt_id : undefined;
    if (!promptId && (type === 'executing' || type === 'progress')) promptId = this.running.get(engineId);
    if (!promptId) return;
    if (type === 'execution_start') this.running.set(engineId, promptId);
    if (FINAL.has(type) && this.running.get(engineId) === promptId) this.running.delete(engineId);
    const door = this.doorPrompt(promptId);
    if (!door) return;
    // A new run of the prompt (another engine took it over): the first run's outputs are not its.
    if (type === 'execution_start') this.deps.store.resetOutputs(door.promptId);
    if (type === 'executed' && typeof data.node === 'string') this.deps.store.addOutput(door.promptId, data.node, data.output);
    // The client hears of the prompt by its own id (a resubmitted prompt runs as another job).
    const text = JSON.stringify({ type, data: door.promptId === promptId ? data : { ...data, prompt_id: door.promptId } });
    const held = this.heldFinal.get(promptId);
    if (held) return void held.push(text);
    if (FINAL.has(type) && !isFinished(this.deps.job(promptId))) return void this.heldFinal.set(promptId, [text]);
    const sent = this.send(door, text);
    if (FINAL.has(type) && sent) this.deps.store.toldFinal(door.promptId);
  }

  private onPreview(engineId: string, preview: EnginePreview): void {
    const promptId = preview.promptId ?? this.running.get(engineId);
    const door = promptId ? this.doorPrompt(promptId) : null;
    if (!door) return;
    const withMeta = preview.raw.readUInt32BE(0) === 4;
    let plain: Buffer | null = null;
    for (const client of this.clientsOf(door)) {
      if (client.metadata && withMeta) client.ws.send(preview.raw, { binary: true });
      else client.ws.send((plain ??= typeOneFrame(preview)), { binary: true });
    }
  }

  /** The end of each finished, untold prompt of `clientId`: its outputs (`executed`), `executing` null, the final message. */
  private async replayFinished(clientId: string, only: Client | null, prompts?: ComfyPrompt[]): Promise<void> {
    for (const prompt of prompts ?? this.deps.store.untold(clientId)) {
      const job = this.deps.job(prompt.job_id);
      if (!isFinished(job) || this.deps.resuming(prompt.prompt_id)) continue;
      const targets = (only ? [only] : [...(this.clients.get(clientId) ?? [])]).filter((c) => mayTouch(c.actor, prompt.owner_id) && c.ws.readyState === WebSocket.OPEN);
      if (targets.length === 0) continue;
      const entry = (await this.deps.service.entryOf(prompt).catch(() => null)) as { outputs?: Record<string, unknown> } | null;
      const frames: unknown[] = [];
      if (job.status === 'completed') {
        for (const [node, output] of Object.entries(entry?.outputs ?? {})) frames.push({ type: 'executed', data: { node, display_node: node, output, prompt_id: prompt.prompt_id } });
        frames.push({ type: 'executing', data: { node: null, display_node: null, prompt_id: prompt.prompt_id } });
      }
      const [type, data] = finalMessage(job, prompt.prompt_id, Date.now());
      frames.push({ type, data });
      for (const client of targets) for (const frame of frames) client.ws.send(JSON.stringify(frame));
      this.deps.store.toldFinal(prompt.prompt_id);
    }
  }

  /** Each socket hears its own client's count (`status` of the service). */
  private broadcastStatus(): void {
    for (const set of this.clients.values()) {
      for (const c of set) {
        if (c.ws.readyState === WebSocket.OPEN) c.ws.send(JSON.stringify({ type: 'status', data: { status: this.deps.service.status(c.actor, c.clientId) } }));
      }
    }
  }

  /** The door prompt a Studio job runs (by the job's id), with the client's own prompt id. */
  private doorPrompt(jobId: string): Door | null {
    const cached = this.known.get(jobId);
    if (cached) return cached;
    const row = this.deps.store.byJob(jobId);
    if (!row) return null;
    const door = { promptId: row.prompt_id, clientId: row.client_id, ownerId: row.owner_id };
    if (this.known.size > 5_000) this.known.clear();
    this.known.set(jobId, door);
    return door;
  }

  private clientsOf(door: Door): Client[] {
    if (!door.clientId) return [];
    return [...(this.clients.get(door.clientId) ?? [])].filter((c) => c.ws.readyState === WebSocket.OPEN && mayTouch(c.actor, door.ownerId));
  }

  private send(door: Door, text: string): boolean {
    const targets = this.clientsOf(door);
    for (const client of targets) client.ws.send(text);
    return targets.length > 0;
  }
}

/** The engine's plain preview frame: `[u32 1][u32 format: 1 JPEG, 2 PNG][image]`. */
function typeOneFrame(preview: EnginePreview): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(1, 0);
  head.writeUInt32BE(preview.imageType === 'image/png' ? 2 : 1, 4);
  return Buffer.concat([head, preview.image]);
}
