/**
 * A network blip must not run a job twice. An engine frozen (SIGSTOP) near the end of a job is
 * marked offline and its job fails over to another engine, which finishes it; when the frozen one
 * runs again it would finish its old copy within milliseconds — before its next health check
 * could see it back and take the copy off it. So the failover sends the cancel at once, and the
 * request waits in the frozen engine's socket: it is read the moment the engine runs again, and
 * the old copy never completes. An engine cut off by the network (a proxy that drops every
 * connection) cannot be reached and finishes its copy: Studio keeps one result and says that the
 * job ran twice (`job.ran_twice`). Two stand-ins by URL; this computer's engine does not answer.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, waitForJob } from '../../helpers/runner.js';
import { startStandin, type StandinProcess } from '../../helpers/standin-process.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { until } from '../../helpers/studio-ws.js';

interface QueuedJob {
  prompt_id: string;
  status: string;
  engine_id: string | null;
  progress?: { step: number };
}

let t: TestStudio;
let slow: StandinProcess;
let fast: StandinProcess;

const json = async <T>(res: Response) => (await res.json()) as T;
const post = (p: string, body?: unknown) => t.api(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}) });
const queue = async () => json<QueuedJob[]>(await t.api('/api/admin/queue'));
const engineStatus = async (id: string) => (await json<{ engines: Array<{ id: string; status: string }> }>(await t.api('/api/admin/engines'))).engines.find((e) => e.id === id)?.status;
const add = async (name: string, url: string) => (await json<{ id: string }>(await post('/api/admin/engines', { name, url }))).id;

beforeAll(async () => {
  const models = { checkpoints: ['sd_xl_base_1.0.safetensors'] };
  [slow, fast] = await Promise.all([startStandin({ stepMs: 300, nodeMs: 300, models }), startStandin({ stepMs: 100, models })]);
  t = await startTestStudio({ startEngine: true, engineProbeMs: 200, env: { ENGINE_MODE: 'external', ENGINE_POOL_PROBE_MS: '4000' } });
  await until(async () => t.studio.engine.state.status === 'unreachable', 'the local engine unreachable', 30_000);
}, 60_000);

afterAll(async () => {
  slow?.child.kill('SIGCONT');
  await t?.stop();
  await Promise.all([slow?.stop(), fast?.stop()]);
});

describe('an engine frozen near the end of a job that failed over', () => {
  it('never completes its old copy when it runs again', async () => {
    const slowId = await add('Slow box', slow.url);
    await until(async () => (await engineStatus(slowId)) === 'online', 'the slow engine online', 30_000);
    const job = (await execute(t.api, 'txt2img-sdxl', { params: { positive: 'nearly done when frozen', steps: 6 } })).prompt_id;
    const fastId = await add('Fast box', fast.url);
    await until(async () => (await engineStatus(fastId)) === 'online', 'the fast engine online', 30_000);
    // Frozen mid-sampling, under a second of work from the end: well inside one health interval.
    await until(async () => {
      const j = (await queue()).find((q) => q.prompt_id === job);
      return j?.engine_id === slowId && (j.progress?.step ?? 0) >= 4;
    }, 'the job at its fourth step on the slow engine', 30_000);
    slow.child.kill('SIGSTOP');
    await until(async () => (await engineStatus(slowId)) === 'offline', 'the slow engine offline', 30_000);
    expect((await waitForJob(t.api, job, ['completed', 'error', 'stalled'], 30_000)).status).toBe('completed');
    const record = await json<{ engine_id?: string }>(await t.api(`/api/admin/history/${job}`));
    expect(record.engine_id).toBe(fastId);

    slow.child.kill('SIGCONT');
    await until(async () => (await engineStatus(slowId)) === 'online', 'the slow engine online again', 30_000);
    await new Promise((r) => setTimeout(r, 1_500));
    const history = await json<Record<string, { status?: { status_str?: string } }>>(await fetch(`${slow.url}/history/${job}`));
    expect(history[job]?.status?.status_str).not.toBe('success');
    const twice = await json<unknown[]>(await t.api('/api/admin/events?types=job.ran_twice&limit=10'));
    expect(twice).toEqual([]);
  }, 120_000);
});

/** A TCP proxy to `target` that can be cut (every connection dropped, new ones refused at once) and restored. */
async function cuttableProxy(target: string): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  let open = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      open = true;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe('an engine cut off by the network while it runs a job that failed over', () => {
  it('finishes its copy there: Studio keeps one result and records that the job ran twice', async () => {
    const models = { checkpoints: ['sd_xl_base_1.0.safetensors'] };
    const box = await startStandin({ stepMs: 300, models });
    const proxy = await cuttableProxy(box.url);
    try {
      const boxId = await add('Cut-off box', proxy.url);
      await until(async () => (await engineStatus(boxId)) === 'online', 'the cut-off box online', 30_000);
      // Only the box in the pool while the job is handed out; then an engine to fail over to.
      const engines = (await json<{ engines: Array<{ id: string; kind: string }> }>(await t.api('/api/admin/engines'))).engines;
      for (const e of engines.filter((e) => e.kind === 'remote' && e.id !== boxId)) expect((await t.api(`/api/admin/engines/${e.id}`, { method: 'DELETE' })).status).toBe(200);
      const job = (await execute(t.api, 'txt2img-sdxl', { params: { positive: 'cut off', steps: 40 } })).prompt_id;
      await until(async () => (await queue()).find((q) => q.prompt_id === job && q.engine_id === boxId && q.status === 'running'), 'the job running on the box', 30_000);
      const fastId = await add('Fast box again', fast.url);
      await until(async () => (await engineStatus(fastId)) === 'online', 'the fast engine online', 30_000);
      proxy.cut();
      expect((await waitForJob(t.api, job, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');
      // The box kept running behind the cut: its copy finishes there too.
      await until(async () => (await json<Record<string, { status?: { status_str?: string } }>>(await fetch(`${box.url}/history/${job}`)))[job]?.status?.status_str === 'success', 'the copy finished on the box', 30_000);
      proxy.restore();
      await until(async () => (await engineStatus(boxId)) === 'online', 'the box online again', 30_000);
      const twice = await until(async () => {
        const events = await json<Array<{ data: { prompt_id: string; engine_id: string } }>>(await t.api('/api/admin/events?types=job.ran_twice&limit=10'));
        return events.length ? events : null;
      }, 'the job.ran_twice event', 30_000);
      expect(twice.map((e) => e.data)).toEqual([expect.objectContaining({ prompt_id: job, engine_id: boxId })]);
      // One result: the record is the engine's that Studio handed it to.
      const record = await json<{ status: string; engine_id?: string }>(await t.api(`/api/admin/history/${job}`));
      expect(record.status).toBe('completed');
      expect(record.engine_id).not.toBe(boxId);
    } finally {
      proxy.restore();
      await proxy.close();
      await box.stop();
    }
  }, 120_000);
});
