/**
 * A hung engine (it accepts connections and never answers): Studio's watch finds it unreachable
 * within seconds, and requests that need the engine use that instead of waiting out their own
 * timeouts (execute and opening a workflow used to answer after 240 s, the list after 120 s).
 * They answer at once: execute and uploads 503 with the reason; the workflow list and one
 * workflow serve the last readiness the engine allowed, marked stale.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../helpers/fake-catalogs.js';
import { freePort } from '../../helpers/ports.js';
import { executeRaw, SAMPLE_PNG } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import fs from 'node:fs';
import { EngineClient } from '../../../server/engine/engine.client.js';
import { EngineUnavailableError } from '../../../server/engine/engine-errors.js';

let t: TestStudio | null = null;
const closers: Array<() => void> = [];
afterEach(async () => {
  await t?.stop();
  t = null;
  for (const close of closers.splice(0)) close();
});

/** A TCP server that takes every connection and never says a word. */
async function silentEngine(port: number): Promise<void> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
}

/** An engine that answers (its loaders offer the SDXL checkpoint) until `hang()`; then it never answers again. */
async function engineThatHangs(port: number): Promise<{ hang: () => void }> {
  let hung = false;
  const server = http.createServer((req, res) => {
    if (hung) return;
    if (req.url === '/object_info') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ CheckpointLoaderSimple: { input: { required: { ckpt_name: [['sd_xl_base_1.0.safetensors'], {}] } }, output: ['MODEL'] } }));
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { hang: () => (hung = true) };
}

async function studioOn(port: number): Promise<TestStudio> {
  return startTestStudio({ startEngine: true, env: { ENGINE_MODE: 'external', ENGINE_PORT: String(port) } });
}

async function engineUnreachable(studio: TestStudio): Promise<void> {
  await waitFor(async () => ((await (await fetch(`${studio.url}/api/health`)).json()) as { engine: string }).engine === 'unreachable', 'the engine to be unreachable');
}

interface WorkflowList {
  readiness_stale?: boolean;
  readiness_as_of?: string | null;
  readiness_reason?: string;
  workflows: Array<{ id: string; ready: boolean; readiness_stale?: boolean; models_status: { present: number; missing: string[] } }>;
}

describe('an engine that accepts connections and never answers', () => {
  it('execute, uploads and opening a workflow answer at once: 503 with the reason, or readiness marked stale', async () => {
    const port = await freePort();
    await silentEngine(port);
    t = await studioOn(port);
    await engineUnreachable(t);

    const run = await executeRaw(t.api, 'txt2img-sdxl', { params: { prompt: 'a fox' } });
    expect(run.status).toBe(503);
    expect(((await run.json()) as { detail: string }).detail).toMatch(/^The engine does not answer \(GET .*system_stats: no answer within 2000 ms\)/);

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(fs.readFileSync(SAMPLE_PNG))], { type: 'image/png' }), 'photo.png');
    const upload = await t.api('/api/run/upload-image', { method: 'POST', body: form });
    expect(upload.status).toBe(503);

    const list = (await (await t.api('/api/admin/workflows')).json()) as WorkflowList;
    expect(list).toMatchObject({ readiness_stale: true, readiness_as_of: null });
    expect(list.readiness_reason).toMatch(/The engine does not answer/);
    expect(list.workflows.length).toBeGreaterThan(0);
    expect(list.workflows.every((w) => w.readiness_stale === true)).toBe(true);

    for (const pathname of ['/api/admin/workflows/txt2img-sdxl', '/api/run/txt2img-sdxl']) {
      const one = await t.api(pathname);
      expect(one.status).toBe(200);
      expect(await one.json()).toMatchObject({ id: 'txt2img-sdxl', readiness_stale: true, readiness_as_of: null });
    }
  });

  it('the workflow list keeps the readiness the engine last allowed, marked stale, once it hangs', async () => {
    const port = await freePort();
    const engine = await engineThatHangs(port);
    t = await studioOn(port);
    await t.studio.engineReady();
    const fresh = (await (await t.api('/api/admin/workflows')).json()) as WorkflowList;
    expect(fresh.readiness_stale).toBeUndefined();
    const sdxl = (list: WorkflowList) => list.workflows.find((w) => w.id === 'txt2img-sdxl')!;
    expect(sdxl(fresh)).toMatchObject({ ready: true, models_status: { present: 1, missing: [] } });
    expect(sdxl(fresh).readiness_stale).toBeUndefined();

    engine.hang();
    await engineUnreachable(t);
    const stale = (await (await t.api('/api/admin/workflows')).json()) as WorkflowList;
    expect(stale.readiness_stale).toBe(true);
    expect(stale.readiness_as_of).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(sdxl(stale)).toMatchObject({ ready: true, readiness_stale: true, models_status: { present: 1, missing: [] } });
  });
});

describe('the engine client', () => {
  it('cuts short the calls in flight when the engine is found unavailable', async () => {
    const port = await freePort();
    await silentEngine(port);
    let lose: (reason: string) => void = () => undefined;
    let down: string | null = null;
    const client = new EngineClient({
      baseUrl: `http://127.0.0.1:${port}`,
      availability: { unavailableReason: () => down, onLost: (listener) => ((lose = listener), () => undefined) },
    });
    const inFlight = client.queue().catch((err: unknown) => err);
    // The request is on the wire (the silent engine holds it) when the watch gives up on the engine.
    await new Promise((resolve) => setTimeout(resolve, 200));
    down = 'The engine does not answer (test).';
    lose(down);
    const err = await inFlight;
    expect(err).toBeInstanceOf(EngineUnavailableError);
    expect(err).toMatchObject({ kind: 'unavailable', path: '/queue', message: 'The engine does not answer (test).' });
    // And later calls fail before touching the network.
    await expect(client.systemStats()).rejects.toBeInstanceOf(EngineUnavailableError);
  });
});
