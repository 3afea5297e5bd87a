/**
 * The worker side of `DownloadThreads`: a `start` message runs one `downloadFile` call (progress
 * and the outcome posted back), an `abort` message cancels it; then the thread waits for the next
 * `start`. Each download has its own controller and run: nothing of one carries to the next.
 */
import { parentPort } from 'node:worker_threads';
import { serializeDownloadError, type DownloadThreadCommand, type DownloadThreadMessage } from './download-thread.js';
import { downloadFile } from './file-download.js';

const port = parentPort;
if (!port) throw new Error('download-thread.worker runs as a worker thread only');
const post = (message: DownloadThreadMessage) => port.postMessage(message);
/** The download under way, if any. */
let current: AbortController | null = null;

async function run({ req, options }: Extract<DownloadThreadCommand, { type: 'start' }>): Promise<void> {
  const controller = new AbortController();
  current = controller;
  try {
    const result = await downloadFile(req, { ...options, signal: controller.signal, onProgress: (progress) => post({ type: 'progress', progress }) });
    post({ type: 'done', result });
  } catch (err) {
    post({ type: 'error', error: serializeDownloadError(err) });
  } finally {
    if (current === controller) current = null;
  }
}

port.on('message', (message: DownloadThreadCommand) => {
  if (message.type === 'abort') current?.abort();
  else void run(message);
});
