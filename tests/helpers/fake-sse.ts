/** Reading Studio's download status stream (SSE) in tests. */
import type { DownloadStatusEntry } from '../../server/downloads/index.js';
import type { TestStudio } from './studio.js';

/** One parsed `data:` event of `GET /api/admin/models/status`. */
export interface StatusEvent {
  downloads: Record<string, DownloadStatusEntry>;
  timestamp: number;
}

/** Open the stream, read `count` events, close it. */
export async function readStatusEvents(t: TestStudio, count: number): Promise<StatusEvent[]> {
  const controller = new AbortController();
  const res = await t.api('/api/admin/models/status', { signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`status stream answered ${res.status}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) throw new Error(`status stream has content type ${type}`);
  const events: StatusEvent[] = [];
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (events.length < count) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0 && events.length < count) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data) events.push(JSON.parse(data) as StatusEvent);
      }
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
  return events;
}

/** The current status entries (the stream's first event). */
export async function downloadStatuses(t: TestStudio): Promise<Record<string, DownloadStatusEntry>> {
  const [event] = await readStatusEvents(t, 1);
  if (!event) throw new Error('the status stream ended without an event');
  return event.downloads;
}
