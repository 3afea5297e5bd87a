/**
 * Studio knows its own engine child across its own death. The child's pid (it leads its own
 * process group) is recorded in the data folder while it runs; a Studio killed with SIGKILL leaves
 * the record behind with the child still working (an orphan). The next Studio, before it chooses
 * a mode or starts an engine, finds that orphan by the record — never adopts it as an external
 * engine — takes a snapshot of its queue and history (jobs it finished meanwhile are finished,
 * not lost: `jobs/job-reconcile.ts` reads the snapshot), then ends its group and waits for the port.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from '../logging.js';
import type { HistoryEntry } from './engine-protocol.js';
import { forgetEngineChild, ownOrphan } from '../process/child-record.js';
import { groupHasLiveMembers, signalGroup } from '../process/process-group.js';

const snapshotFile = (port: number) => `orphan-engine-history-${port}.json`;
/** How long an orphan gets to end on SIGTERM, then how long its port gets to free up. */
const END_WAIT_MS = 10_000;
const PORT_WAIT_MS = 5_000;

/** What the orphan had when it was ended: its history, and the prompts still in its queue. */
export interface OrphanSnapshot {
  history: Record<string, HistoryEntry>;
  queued: string[];
}

/**
 * End a previous Studio's engine orphan on `port`, if there is one: nothing new starts on it (its
 * queue is cleared, its running job interrupted), its queue and history are kept as a snapshot, then its group gets SIGTERM,
 * SIGKILL if it lingers, and the port is awaited. True when there was one.
 */
export async function endOwnOrphan(engineDir: string, port: number, logger: Logger): Promise<boolean> {
  const orphan = ownOrphan(engineDir, port);
  if (!orphan) return false;
  const url = `http://127.0.0.1:${port}`;
  logger.warn(`engine: the engine a previous Studio started (pid ${orphan.pid}) still runs on port ${port}; reading its history, then ending it`);
  const ask = async (route: string, init?: RequestInit) => (await fetch(url + route, { ...init, signal: AbortSignal.timeout(5_000) })).json() as Promise<unknown>;
  try {
    // Nothing new starts, and the running job stops: a job that finished after the history was read
    // but before the orphan ended would be counted lost and run again.
    const queue = (await ask('/queue')) as { queue_running?: unknown[][]; queue_pending?: unknown[][] };
    const queued = [...(queue.queue_running ?? []), ...(queue.queue_pending ?? [])].map((item) => String(item[1]));
    await ask('/queue', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ clear: true }) }).catch(() => undefined);
    await fetch(`${url}/interrupt`, { method: 'POST', signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    await waitFor(async () => (((await ask('/queue').catch(() => ({}))) as { queue_running?: unknown[] }).queue_running ?? []).length === 0, END_WAIT_MS);
    const history = (await ask('/history')) as Record<string, HistoryEntry>;
    const file = path.join(engineDir, snapshotFile(port));
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ history, queued } satisfies OrphanSnapshot));
    fs.renameSync(`${file}.tmp`, file);
  } catch (err) {
    logger.warn(`engine: the orphan's history could not be read; its jobs are checked as lost ones`, err);
  }
  signalGroup(orphan.pid, 'SIGTERM');
  if (!(await waitFor(async () => !(await groupHasLiveMembers(orphan.pid)), END_WAIT_MS))) signalGroup(orphan.pid, 'SIGKILL');
  if (!(await waitFor(() => portFree(port), PORT_WAIT_MS))) logger.warn(`engine: port ${port} is still taken after the orphan ended`);
  forgetEngineChild(engineDir, port);
  return true;
}

/** The snapshot of the last orphan ended, if any (read by the local engine's reconciler). */
export function readOrphanSnapshot(engineDir: string, port: number): OrphanSnapshot | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(engineDir, snapshotFile(port)), 'utf8')) as OrphanSnapshot;
  } catch {
    return null;
  }
}

/** Every job the snapshot could tell about has been reconciled. */
export function dropOrphanSnapshot(engineDir: string, port: number): void {
  fs.rmSync(path.join(engineDir, snapshotFile(port)), { force: true });
}

async function waitFor(done: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return done();
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
