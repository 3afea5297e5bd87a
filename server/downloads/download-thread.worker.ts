/**
 * The worker side of `downloadInThread`: runs the one `downloadFile` call of its `workerData`
 * (progress and the outcome posted back); an `abort` message cancels it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serializeDownloadError, type DownloadThreadCommand, type DownloadThreadJob, type DownloadThreadMessage } from './download-thread.js';
import { downloadFile } from './file-download.js';

const port = parentPort;
if (!port) throw new Error('download-thread.worker runs as a worker thread only');
const post = (message: DownloadThreadMessage) => port.postMessage(message);
const { req, options } = workerData as DownloadThreadJob;
const controller = new AbortController();

port.on('message', (message: DownloadThreadCommand) => {
  if (message.type === 'abort') controller.abort();
});
try {
  const result = await downloadFile(req, { ...options, signal: controller.signal, onProgress: (progress) => post({ type: 'progress', progress }) });
  post({ type: 'done', result });
} catch (err) {
  post({ type: 'error', error: serializeDownloadError(err) });
}
