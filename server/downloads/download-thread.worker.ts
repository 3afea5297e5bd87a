/**
 * The worker side of `downloadInThread`: one `downloadFile` call with the request it was given,
 * progress and the outcome posted back, an `abort` message for cancelling.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ABORT_MESSAGE, serializeDownloadError, type DownloadThreadData, type DownloadThreadMessage } from './download-thread.js';
import { downloadFile } from './file-download.js';

const port = parentPort;
if (!port) throw new Error('download-thread.worker runs as a worker thread only');
const { req, options } = workerData as DownloadThreadData;
const controller = new AbortController();
port.on('message', (message: unknown) => {
  if (message === ABORT_MESSAGE) controller.abort();
});
const post = (message: DownloadThreadMessage) => port.postMessage(message);
try {
  const result = await downloadFile(req, { ...options, signal: controller.signal, onProgress: (progress) => post({ type: 'progress', progress }) });
  post({ type: 'done', result });
} catch (err) {
  post({ type: 'error', error: serializeDownloadError(err) });
} finally {
  port.close();
}
