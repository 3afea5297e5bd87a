/**
 * A Server-Sent Events subscription with our own reconnect: the browser's EventSource retries
 * dropped connections by itself but gives up for good after an HTTP error (a restart in
 * progress, a 503 during an update), so a closed source is reopened with backoff.
 */
import { backoffDelay } from './socket.js';

export interface EventStreamOptions<T> {
  url: string;
  onData: (data: T) => void;
  onState?: (connected: boolean) => void;
  createSource?: (url: string) => EventSourceLike;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** The part of EventSource used here. */
export interface EventSourceLike {
  readonly readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(): void;
}

const CLOSED = 2;

/** Open the stream; call the returned function to close it. */
export function openEventStream<T>(options: EventStreamOptions<T>): () => void {
  const create = options.createSource ?? ((url: string) => new EventSource(url, { withCredentials: true }) as unknown as EventSourceLike);
  let source: EventSourceLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let attempt = 0;
  let stopped = false;

  const open = () => {
    timer = null;
    const current = create(options.url);
    source = current;
    current.onopen = () => {
      attempt = 0;
      options.onState?.(true);
    };
    current.onmessage = (event) => {
      try {
        options.onData(JSON.parse(event.data) as T);
      } catch {}
    };
    current.onerror = () => {
      options.onState?.(false);
      if (current.readyState !== CLOSED || stopped) return;
      current.close();
      attempt += 1;
      timer = setTimeout(open, backoffDelay(attempt, options.baseDelayMs ?? 1000, options.maxDelayMs ?? 15_000, Math.random()));
    };
  };
  open();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    source?.close();
    source = null;
  };
}
