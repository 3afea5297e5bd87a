/**
 * Handing one job to one engine: the input files it names go first to an engine that does not
 * read Studio's input folder (a remote engine or an agent), then the prompt is submitted under
 * Studio's prompt id, tracked by that engine's monitor from before the submit (no early message is
 * missed) and announced after it. Also the way back: taking a job off its engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isKind } from '../../domain-error.js';
import { isBelow, isContained } from '../../http/contained-path.js';
import { EngineValidationError } from '../../engine/engine-errors.js';
import { inputFilesOf } from '../../engine/pool/engine-needs.js';
import { refusalInWords } from '../refusal-words.js';
import type { Logger } from '../../logging.js';
import type { QueueRow } from './queue.store.js';
import type { QueueEngine } from './queue-engine.js';

/** How long a hand-over waits for the engine socket (its events are not replayed). */
const SOCKET_WAIT_MS = 2_000;

/** submitted; refused (the engine rejected the graph: the job fails with its words); failed (not reached); gone (cancelled meanwhile). */
export type HandOverResult = { kind: 'submitted' } | { kind: 'refused'; message: string } | { kind: 'failed' } | { kind: 'gone' };

export async function submitTo(engine: QueueEngine, row: QueueRow, ctx: { inputDir: string; logger: Logger; stillQueued: () => boolean }): Promise<HandOverResult> {
  const id = row.prompt_id;
  await engine.monitor.socketReady(SOCKET_WAIT_MS);
  // Cancelled while the socket was awaited: nothing to submit.
  if (!ctx.stillQueued()) return { kind: 'gone' };
  try {
    if (!engine.sharesFolders()) await uploadInputs(engine, row, ctx.inputDir);
  } catch (err) {
    ctx.logger.warn(`engine ${engine.id}: the inputs of ${id} could not be uploaded`, err);
    return { kind: 'failed' };
  }
  engine.monitor.track(id, row.graph, { held: true });
  try {
    const submitted = await engine.client.submitPrompt({ prompt: row.graph, client_id: engine.clientId, prompt_id: id, extra_data: row.extra_data });
    if (Object.keys(submitted.node_errors).length) ctx.logger.warn(`prompt ${id} was queued with node errors: ${JSON.stringify(submitted.node_errors).slice(0, 1000)}`);
  } catch (err) {
    engine.monitor.untrack(id);
    // The job's error is read by people: the engine's node errors in words (the one rule Run uses too).
    if (err instanceof EngineValidationError) return { kind: 'refused', message: refusalInWords(err.engineBody).detail };
    if (isKind(err, 'rejected')) return { kind: 'refused', message: err.message };
    ctx.logger.warn(`engine ${engine.id} could not take job ${id}`, err);
    return { kind: 'failed' };
  }
  engine.monitor.release(id);
  return { kind: 'submitted' };
}

/** Take a job off its engine: out of the engine's queue if it waits there, interrupted if it runs. */
export async function stopOnEngine(engine: QueueEngine, promptId: string, logger: Logger): Promise<void> {
  // Both: the engine may start it between the two calls; an interrupt with an id only stops that prompt.
  await engine.client.deleteFromQueue([promptId]).catch((err: unknown) => logger.warn(`could not delete ${promptId} from engine ${engine.id}'s queue`, err));
  await engine.client.interrupt(promptId).catch((err: unknown) => logger.warn(`could not interrupt ${promptId} on engine ${engine.id}`, err));
}

/**
 * Cancel jobs on an engine Studio has just lost, before another engine runs them: the delete and
 * the interrupts go out at once through its cancel client (no availability gate, a long wait), so
 * an engine that is only frozen or cut off reads them as soon as it runs again — before its old
 * copy can finish. Not awaited by the failover; failures are logged.
 */
export function cancelOnLostEngine(engine: QueueEngine, promptIds: readonly string[], logger: Logger): Promise<void> {
  const client = engine.cancelClient;
  const calls = [client.deleteFromQueue([...promptIds]), ...promptIds.map((id) => client.interrupt(id))];
  return Promise.allSettled(calls).then((results) => {
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed) logger.warn(`engine ${engine.id}: ${failed} of the cancels sent after it was lost did not reach it (checked again when it is back)`);
  });
}

/** Upload the graph's input files from Studio's input folder, under the same names (overwriting). */
async function uploadInputs(engine: QueueEngine, row: QueueRow, inputDir: string): Promise<void> {
  for (const name of inputFilesOf(row.graph)) {
    const file = path.resolve(inputDir, name);
    // Only files inside Studio's input folder leave it (by real path: a link there does not carry one out).
    if (!isBelow(inputDir, file) || !isContained(inputDir, file)) continue;
    const slash = name.lastIndexOf('/');
    const subfolder = slash < 0 ? '' : name.slice(0, slash);
    await engine.client.uploadImage(await fs.openAsBlob(file), path.basename(name), { subfolder, overwrite: true });
  }
}
