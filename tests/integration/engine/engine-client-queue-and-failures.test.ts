/**
 * EngineClient's queue, delete and interrupt, an engine that is down or stuck, and the outputs
 * read from a history entry.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient } from '../../../server/engine/engine.client.js';
import { EngineError, EngineUnreachableError, EngineValidationError } from '../../../server/engine/engine-errors.js';
import { parseHistoryOutputs, primaryOutput, type EngineOutputFile } from '../../../server/engine/engine-outputs.js';
import { freePort } from '../../helpers/ports.js';
import { CLIENT_ID, PNG, type Engine, startEngine, stopEngine, track, samplerGraph, noiseGraph } from '../../helpers/engine-client-setup.js';

describe('queue, delete and interrupt', () => {
  let e: Engine;
  beforeAll(async () => {
    e = await startEngine(150);
  });
  afterAll(async () => {
    await stopEngine(e);
  });

  it('lists running and pending prompts, deletes a pending one and interrupts the running one', async () => {
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const graphs = ids.map((_, i) => samplerGraph(`jobs/q${i}/final/out`, 100 + i));
    const runA = track(e.socket, ids[0]!, graphs[0]!);
    const started = new Promise<void>((resolve) => {
      const off = e.socket.onMessage((m) => {
        if (m.type === 'progress' && m.data.prompt_id === ids[0]) {
          off();
          resolve();
        }
      });
    });
    for (const [i, id] of ids.entries()) await e.client.submitPrompt({ prompt: graphs[i]!, client_id: CLIENT_ID, prompt_id: id });
    await started;

    const queue = await e.client.queue();
    expect(queue.running).toEqual([ids[0]]);
    expect(queue.pending).toEqual([ids[1], ids[2]]);
    expect(queue.raw.queue_pending).toHaveLength(2);

    await e.client.deleteFromQueue([ids[2]!]);
    expect((await e.client.queue()).pending).toEqual([ids[1]]);

    const runB = track(e.socket, ids[1]!, graphs[1]!);
    await e.client.interrupt(ids[0]);
    await runA.done;
    expect(runA.tracker.status).toBe('interrupted');
    expect(runA.tracker.snapshot().percent).toBeLessThan(100);
    // The next prompt runs on, then finishes; the deleted one never gets history.
    await runB.done;
    expect(runB.tracker.status).toBe('completed');
    expect(await e.client.history(ids[2]!)).toBeNull();
    expect((await e.client.history(ids[0]!))?.status?.status_str).toBe('error');
  });
});

describe('an engine that is down or stuck', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  async function serve(handler: http.RequestListener): Promise<string> {
    const server = http.createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('throws EngineUnreachableError when nothing listens, and view gives null', async () => {
    const client = new EngineClient({ baseUrl: `http://127.0.0.1:${await freePort()}` });
    const err = await client.systemStats().catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineUnreachableError);
    expect((err as EngineUnreachableError).kind).toBe('unreachable');
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    await expect(client.submitPrompt({ prompt: noiseGraph('x'), client_id: CLIENT_ID })).rejects.toBeInstanceOf(EngineUnreachableError);
    await expect(client.uploadImage(PNG, 'a.png')).rejects.toBeInstanceOf(EngineUnreachableError);
    await expect(client.queue()).rejects.toBeInstanceOf(EngineUnreachableError);
    expect(await client.viewStream({ filename: 'a.png' })).toBeNull();
  });

  it('times out a call the engine never answers', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const client = new EngineClient({ baseUrl: url, timeoutMs: 200 });
    const err = await client.history('x').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineUnreachableError);
    expect((err as Error).message).toContain('no answer within 200 ms');
    expect(await client.viewStream({ filename: 'a.png' })).toBeNull();
  });

  it('times only the headers of view, not the body', async () => {
    // Headers at once, then the body held until a timer as long as the client's timeout, started
    // after the client's own (the request has arrived), has fired: a client that timed the body too
    // would have aborted by then. No wall-clock bound: a slow machine only delays the headers.
    const timeoutMs = 2000;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(1000, 1));
      setTimeout(() => res.end(Buffer.alloc(7000, 1)), timeoutMs + 50);
    });
    const client = new EngineClient({ baseUrl: url, timeoutMs });
    const res = await client.viewStream({ filename: 'slow.bin' });
    const parts: Buffer[] = [];
    for await (const part of res!.body) parts.push(part as Buffer);
    const body = Buffer.concat(parts);
    expect(body.length).toBe(8000);
  });

  it('reports an unexpected engine answer as an engine error, not a crash', async () => {
    const url = await serve((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('Server got itself in trouble'));
    const client = new EngineClient({ baseUrl: url });
    const err = await client.submitPrompt({ prompt: noiseGraph('x'), client_id: CLIENT_ID }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).kind).toBe('upstream');
    expect(err).not.toBeInstanceOf(EngineValidationError);
    expect((err as Error).message).toContain('HTTP 500');
  });
});

describe('parseHistoryOutputs and primaryOutput', () => {
  const entry = {
    outputs: {
      '9': {
        images: [
          { filename: 'a_00001_.png', subfolder: 'jobs/j/final', type: 'output' },
          { filename: 'b_00001_.png', subfolder: 'jobs/j/final', type: 'output' },
        ],
        animated: [false],
      },
      '12': { images: [{ filename: 'ComfyUI_temp_abcde_00001_.png', subfolder: '', type: 'temp' }] },
      '15': { text: ['hello'] },
      '20': { audio: [{ filename: 'voice_00001_.flac', subfolder: 'audio', type: 'output' }] },
      '7': { '3d': [{ notAFile: true }], junk: 'x', nothing: null },
    },
  };

  it('flattens outputs, keeping only dicts with a filename', () => {
    const files = parseHistoryOutputs(entry);
    // Integer-like node ids come out in numeric order; `animated`, `text` and junk are skipped.
    expect(files.map((f) => `${f.node_id}:${f.kind}:${f.filename}:${f.type}`)).toEqual([
      '9:images:a_00001_.png:output',
      '9:images:b_00001_.png:output',
      '12:images:ComfyUI_temp_abcde_00001_.png:temp',
      '20:audio:voice_00001_.flac:output',
    ]);
  });

  it('picks the last output image, ignoring temp previews', () => {
    expect(primaryOutput(parseHistoryOutputs(entry))?.filename).toBe('b_00001_.png');
  });

  it('prefers videos by extension, format or key, and ignores temp videos', () => {
    const base: EngineOutputFile[] = [{ node_id: '1', kind: 'images', filename: 'x.png', subfolder: '', type: 'output' }];
    const byExt = [...base, { node_id: '2', kind: 'images', filename: 'clip_00001_.webm', subfolder: '', type: 'output' }, ...base];
    expect(primaryOutput(byExt)?.filename).toBe('clip_00001_.webm');
    const byFormat = [{ node_id: '2', kind: 'files', filename: 'clip', subfolder: '', type: 'output', format: 'video/h264-mp4' }, ...base];
    expect(primaryOutput(byFormat)?.filename).toBe('clip');
    const byKey = [{ node_id: '2', kind: 'gifs', filename: 'anim.gif', subfolder: '', type: 'output' }, ...base];
    expect(primaryOutput(byKey)?.filename).toBe('anim.gif');
    const tempVideo = [...base, { node_id: '2', kind: 'gifs', filename: 'v.mp4', subfolder: '', type: 'temp' }];
    expect(primaryOutput(tempVideo)?.filename).toBe('x.png');
    expect(primaryOutput([])).toBeNull();
    expect(primaryOutput([{ node_id: '2', kind: 'audio', filename: 'a.flac', subfolder: '', type: 'output' }])?.filename).toBe('a.flac');
  });
});
