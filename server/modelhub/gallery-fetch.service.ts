/**
 * The background fetch of a model's gallery (`POST /api/admin/loras/{model_id}/gallery`). One
 * model at a time, so Studio never bursts the hub: first the model's own version images
 * (`original`), then community images (`/images?modelId=…`) page by page by cursor, with a pause
 * between pages and the client's 429 handling. Phase, cursor and counters are stored after every
 * page, so a stop or a crash resumes where it was (items already saved are skipped). Community
 * images stop at a configured count: a popular model has tens of thousands.
 */
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logging.js';
import { sleep } from '../process/sleep.js';
import { romeIso } from '../time.js';
import type { GalleryItems } from './gallery-items.js';
import type { GalleryStore } from './gallery.store.js';
import type { FetchRow } from '../contracts/modelhub.contract.js';
import type { ModelhubClient } from '../modelhub-client/modelhub.client.js';
import type { ModelhubImage } from '../modelhub-client/modelhub.schema.js';

export interface GalleryFetcherDeps {
  client: ModelhubClient;
  store: GalleryStore;
  items: GalleryItems;
  events: Pick<EventBus, 'emit'>;
  logger: Logger;
  /** Community images kept per model at most. */
  communityLimit: number;
  /** Pause between two hub pages. */
  pageDelayMs: number;
  /** Items per `/images` page. Default 100. */
  pageSize?: number;
}

/** Runs gallery fetches one model at a time. */
export class GalleryFetcher {
  private readonly queue: string[] = [];
  private current: { modelId: string; controller: AbortController; done: Promise<void> } | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly deps: GalleryFetcherDeps) {}

  /** Resume fetches a stop or a crash left unfinished. */
  start(): void {
    for (const row of this.deps.store.unfinished()) {
      this.deps.store.updateFetch(row.model_id, { status: 'queued' });
      this.enqueue(row.model_id);
    }
  }

  /** Start fetching a model's gallery (from the beginning unless it is already queued or running). */
  request(modelId: string): { status: 'started' | 'already_running'; fetch: FetchRow } {
    if (this.current?.modelId === modelId || this.queue.includes(modelId)) {
      return { status: 'already_running', fetch: this.deps.store.fetch(modelId)! };
    }
    const fetch = this.deps.store.startFetch(modelId, romeIso());
    this.enqueue(modelId);
    return { status: 'started', fetch };
  }

  /** Stop a model's fetch (queued or running) and wait until it has let go. */
  async cancel(modelId: string): Promise<void> {
    const at = this.queue.indexOf(modelId);
    if (at >= 0) this.queue.splice(at, 1);
    if (this.current?.modelId === modelId) {
      this.current.controller.abort(new Error('cancelled'));
      // Only this model's run: the loop goes on with the next model in the queue.
      await this.current.done;
    }
  }

  /** Abort the running fetch (its record stays `running`, so the next boot resumes it). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    this.current?.controller.abort(new Error('stopping'));
    await this.loop;
  }

  private enqueue(modelId: string): void {
    if (this.stopped) return;
    this.queue.push(modelId);
    this.loop ??= this.drain().finally(() => (this.loop = null));
  }

  private async drain(): Promise<void> {
    for (let modelId = this.queue.shift(); modelId !== undefined && !this.stopped; modelId = this.queue.shift()) {
      const controller = new AbortController();
      const done = this.run(modelId, controller.signal).catch((err: unknown) => {
        if (!controller.signal.aborted) this.fail(modelId, err);
      });
      this.current = { modelId, controller, done };
      await done;
      this.current = null;
    }
  }

  private async run(modelId: string, signal: AbortSignal): Promise<void> {
    const { store } = this.deps;
    store.updateFetch(modelId, { status: 'running', updated_at: romeIso() });
    let row = store.fetch(modelId);
    if (!row) return;
    if (row.phase === 'original') {
      const model = await this.deps.client.getModel(modelId, signal);
      const images = (model.modelVersions ?? []).flatMap((version) => (version.images ?? []).map((image) => ({ image, versionId: version.id })));
      for (const { image, versionId } of images) await this.save(modelId, 'original', image, versionId, signal);
      store.updateFetch(modelId, { phase: 'community', cursor: null, updated_at: romeIso() });
      row = store.fetch(modelId)!;
    }
    let cursor = row.cursor;
    let seen = row.seen;
    for (;;) {
      if (seen >= this.deps.communityLimit) break;
      const page = await this.deps.client.listImages({ modelId, cursor, limit: this.deps.pageSize ?? 100 }, signal);
      for (const image of page.items) {
        if (seen >= this.deps.communityLimit) break;
        seen += 1;
        await this.save(modelId, 'community', image, null, signal);
      }
      cursor = page.nextCursor;
      const pages = (store.fetch(modelId)?.pages ?? 0) + 1;
      store.updateFetch(modelId, { cursor, pages, seen, updated_at: romeIso() });
      if (cursor === null) break;
      await sleep(this.deps.pageDelayMs, signal);
      signal.throwIfAborted();
    }
    const done = store.fetch(modelId)!;
    store.updateFetch(modelId, { status: 'done', finished_at: romeIso(), updated_at: romeIso() });
    this.deps.events.emit('gallery.fetched', done.failed ? 'warning' : 'success', `Gallery of model ${modelId}: ${done.downloaded} new, ${done.failed} failed`, {
      model_id: modelId,
      downloaded: done.downloaded,
      skipped: done.skipped,
      failed: done.failed,
    });
  }

  private async save(modelId: string, source: 'original' | 'community', image: ModelhubImage, versionId: string | null, signal: AbortSignal): Promise<void> {
    const { store } = this.deps;
    const counts = store.fetch(modelId)!;
    try {
      const outcome = await this.deps.items.save(modelId, source, image, versionId, signal);
      if (outcome === 'downloaded') store.updateFetch(modelId, { downloaded: counts.downloaded + 1 });
      else store.updateFetch(modelId, { skipped: counts.skipped + 1 });
    } catch (err) {
      if (signal.aborted) throw err;
      this.deps.logger.warn(`gallery of model ${modelId}: image ${image.id ?? image.url} skipped: ${(err as Error).message}`);
      store.updateFetch(modelId, { failed: counts.failed + 1 });
    }
  }

  private fail(modelId: string, err: unknown): void {
    const message = (err as Error).message;
    this.deps.logger.warn(`gallery fetch of model ${modelId} failed: ${message}`);
    this.deps.store.updateFetch(modelId, { status: 'error', error: message, finished_at: romeIso(), updated_at: romeIso() });
    this.deps.events.emit('gallery.failed', 'error', `Gallery of model ${modelId} could not be fetched: ${message}`, { model_id: modelId, error: message });
  }
}

