/**
 * EngineClient and EngineSocket against the stand-in engine: prompts, progress, previews,
 * history and /view.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineValidationError } from '../../../server/engine/engine-errors.js';
import { parseHistoryOutputs, primaryOutput } from '../../../server/engine/engine-outputs.js';
import type { ApiGraph } from '../../../server/engine/engine-graph.js';
import { CLIENT_ID, PNG, type Engine, startEngine, stopEngine, track, samplerGraph, noiseGraph } from '../../helpers/engine-client-setup.js';

describe('EngineClient and EngineSocket against the stand-in engine', () => {
  let e: Engine;
  beforeAll(async () => {
    e = await startEngine(10);
  });
  afterAll(async () => {
    await stopEngine(e);
  });

  it('reads system stats and object info', async () => {
    const stats = await e.client.systemStats();
    expect(stats.devices.length).toBeGreaterThan(0);
    expect(typeof stats.system.comfyui_version).toBe('string');
    const info = await e.client.objectInfo();
    expect(info.SaveImage?.output_node).toBe(true);
  });

  it('runs a prompt: full message sequence → tracker at 100 → history outputs → primary output', async () => {
    const promptId = crypto.randomUUID();
    const graph = samplerGraph('jobs/job-1/final/out');
    const run = track(e.socket, promptId, graph);
    const submitted = await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: promptId, extra_data: { preview_method: 'auto' } });
    expect(submitted.prompt_id).toBe(promptId);
    expect(submitted.node_errors).toEqual({});
    await run.done;

    const final = run.tracker.snapshot();
    expect(final).toMatchObject({ status: 'completed', percent: 100, total_nodes: 6, cached_count: 0 });
    let last = 0;
    for (const snap of run.snaps) {
      expect(snap.percent).toBeGreaterThanOrEqual(last);
      if (snap.status === 'running') expect(snap.percent).toBeLessThanOrEqual(99);
      last = snap.percent;
    }
    const running = run.snaps.filter((s) => s.status === 'running');
    expect(running.some((s) => s.node_title === 'Sampler' && s.total_steps === 10)).toBe(true);
    expect(running.some((s) => s.step_rate !== null && s.step_rate > 0)).toBe(true);
    expect(Object.keys(final.node_outputs)).toEqual(['3']);
    // The handshake asked for metadata, so previews came as type 4 with their ids.
    expect(run.previews.length).toBeGreaterThan(0);
    expect(run.previews[0]).toMatchObject({ promptId, nodeId: '2', imageType: 'image/jpeg' });

    const entry = await e.client.history(promptId);
    expect(entry?.status?.status_str).toBe('success');
    const files = parseHistoryOutputs(entry!);
    expect(files).toHaveLength(1);
    const primary = primaryOutput(files);
    expect(primary).toMatchObject({ node_id: '3', kind: 'images', type: 'output', subfolder: 'jobs/job-1/final' });
    expect(primary!.filename).toMatch(/^out_\d{5}_\.png$/);
    expect(fs.existsSync(path.join(e.outputDir, primary!.subfolder, primary!.filename))).toBe(true);

    // The file comes back through /view as a stream.
    const res = await e.client.viewStream({ filename: primary!.filename, subfolder: primary!.subfolder, type: 'output' });
    expect(res?.status).toBe(200);
    expect(res?.headers['content-type']).toBe('image/png');
    res?.body.destroy();
  });

  it('counts cached nodes of a re-run and still completes', async () => {
    const first = crypto.randomUUID();
    const graph = noiseGraph('jobs/job-2/final/out', 7);
    const run1 = track(e.socket, first, graph);
    await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: first });
    await run1.done;
    // Same upstream nodes, new save prefix: the engine reuses nodes 1 and 2 from its cache.
    const second = crypto.randomUUID();
    const graph2 = noiseGraph('jobs/job-3/final/out', 7);
    const run2 = track(e.socket, second, graph2);
    await e.client.submitPrompt({ prompt: graph2, client_id: CLIENT_ID, prompt_id: second });
    await run2.done;
    expect(run2.tracker.snapshot()).toMatchObject({ status: 'completed', percent: 100, cached_count: 2 });
    // Once the engine listed the cached nodes, only the save node is left as work.
    const afterCache = run2.snaps.filter((s) => s.cached_count === 2);
    expect(afterCache.length).toBeGreaterThan(0);
    expect(afterCache.every((s) => s.effective_total <= 1)).toBe(true);
    const files = parseHistoryOutputs((await e.client.history(second))!);
    expect(primaryOutput(files)?.subfolder).toBe('jobs/job-3/final');
  });

  it('prefers a video output over images', async () => {
    const promptId = crypto.randomUUID();
    const graph: ApiGraph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 32, height: 32, batch_size: 1, color: 255 } },
      '2': { class_type: 'RepeatImageBatch', inputs: { image: ['1', 0], amount: 4 } },
      '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'jobs/job-4/final/frames' } },
      '4': {
        class_type: 'VHS_VideoCombine',
        inputs: { images: ['2', 0], frame_rate: 8, loop_count: 0, filename_prefix: 'jobs/job-4/final/clip', format: 'video/h264-mp4', pingpong: false, save_output: true },
      },
    };
    const run = track(e.socket, promptId, graph);
    await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: promptId });
    await run.done;
    const files = parseHistoryOutputs((await e.client.history(promptId))!);
    expect(files.filter((f) => f.kind === 'images')).toHaveLength(4);
    expect(primaryOutput(files)).toMatchObject({ node_id: '4', kind: 'gifs', format: 'video/h264-mp4' });
  });

  it('reports an execution error as [NodeType] message', async () => {
    const promptId = crypto.randomUUID();
    const graph = noiseGraph('jobs/job-5/final/STANDIN_FAIL');
    const run = track(e.socket, promptId, graph);
    await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID, prompt_id: promptId });
    await run.done;
    expect(run.tracker.status).toBe('error');
    expect(run.tracker.error).toBe('[SaveImage] Stand-in failure requested by input filename_prefix');
    expect(run.tracker.snapshot().percent).toBeLessThanOrEqual(99);
    expect((await e.client.history(promptId))?.status?.status_str).toBe('error');
  });

  it('throws EngineValidationError with the node errors and a readable summary', async () => {
    const graph = noiseGraph('x');
    graph['1']!.inputs.width = 999_999;
    const err = await e.client.submitPrompt({ prompt: graph, client_id: CLIENT_ID }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EngineValidationError);
    const v = err as EngineValidationError;
    expect(v.kind).toBe('rejected');
    expect(v.engineBody.error.type).toBe('prompt_outputs_failed_validation');
    expect(v.nodeErrors['1']?.errors[0]?.type).toBe('value_bigger_than_max');
    expect(v.message).toContain('[EmptyImage] node 1: width: ');
    expect(v.extra).toEqual(v.engineBody);

    const unknown = await e.client
      .submitPrompt({ prompt: { '1': { class_type: 'NoSuchNode', inputs: {} } }, client_id: CLIENT_ID })
      .catch((x: unknown) => x);
    expect(unknown).toBeInstanceOf(EngineValidationError);
    expect((unknown as EngineValidationError).engineBody.error.type).toMatch(/missing_node_type|invalid_prompt/);
    expect((unknown as EngineValidationError).message).toContain('NoSuchNode');
  });

  it('uploads an input file and follows the engine renaming', async () => {
    const first = await e.client.uploadImage(PNG, 'cat.png');
    expect(first).toEqual({ name: 'cat.png', subfolder: '', type: 'input' });
    expect(fs.readFileSync(path.join(e.inputDir, 'cat.png')).equals(PNG)).toBe(true);
    const other = Buffer.concat([PNG, Buffer.from([0])]);
    const second = await e.client.uploadImage(other, 'cat.png');
    expect(second.name).toBe('cat (1).png');
    const replaced = await e.client.uploadImage(other, 'cat.png', { overwrite: true });
    expect(replaced.name).toBe('cat.png');
    expect(fs.readFileSync(path.join(e.inputDir, 'cat.png')).equals(other)).toBe(true);
    const nested = await e.client.uploadImage(PNG, 'dog.png', { subfolder: 'pets' });
    expect(nested).toEqual({ name: 'dog.png', subfolder: 'pets', type: 'input' });
    expect(fs.existsSync(path.join(e.inputDir, 'pets', 'dog.png'))).toBe(true);
    // A file on disk streams up as it is read; a slice of a larger buffer sends only its own bytes.
    const src = path.join(os.tmpdir(), `studio-upload-${process.pid}.png`);
    fs.writeFileSync(src, other);
    const streamed = await e.client.uploadImage(await fs.openAsBlob(src), 'from "disk".png');
    fs.rmSync(src);
    expect(fs.readFileSync(path.join(e.inputDir, streamed.name)).equals(other)).toBe(true);
    const slice = await e.client.uploadImage(Buffer.concat([Buffer.alloc(9, 1), PNG]).subarray(9), 'slice.png');
    expect(fs.readFileSync(path.join(e.inputDir, slice.name)).equals(PNG)).toBe(true);
  });

  it('streams a 20 MB file through view without buffering it', async () => {
    const size = 20 * 1024 * 1024;
    fs.mkdirSync(path.join(e.outputDir, 'big'), { recursive: true });
    const big = Buffer.alloc(size, 7);
    big.writeUInt32BE(0xdeadbeef, size - 4);
    fs.writeFileSync(path.join(e.outputDir, 'big', 'big.bin'), big);

    const res = await e.client.viewStream({ filename: 'big.bin', subfolder: 'big', type: 'output' });
    expect(res?.status).toBe(200);
    expect(res!.body.readableDidRead).toBe(false);
    expect(res!.body).toBeInstanceOf(Readable);
    const stream = res!.body;
    let total = 0;
    let chunks = 0;
    let largest = 0;
    let tail = Buffer.alloc(0);
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      total += buf.length;
      chunks += 1;
      largest = Math.max(largest, buf.length);
      tail = Buffer.concat([tail, buf]).subarray(-4);
    }
    expect(total).toBe(size);
    // It arrived in many pieces, none of them the whole file.
    expect(chunks).toBeGreaterThan(1);
    expect(largest).toBeLessThan(size);
    expect(tail.readUInt32BE(0)).toBe(0xdeadbeef);

    const missing = await e.client.viewStream({ filename: 'nope.png', type: 'output' });
    expect(missing?.status).toBe(404);
    missing?.body.destroy();
  });

  it('returns null history for an unknown prompt', async () => {
    expect(await e.client.history(crypto.randomUUID())).toBeNull();
  });
});
