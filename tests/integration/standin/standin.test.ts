/**
 * The stand-in engine over real HTTP and a real WebSocket (fast steps): event order, previews, files
 * on disk, history, cache, validation, uploads, /view and failures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import { PNG, JPEG, type Frame, type TextFrame, WsRecorder, isText, texts, tempDirs, postJson, upload, invertGraph, MODEL, samplerGraph, modelFolders, noiseGraph } from '../../helpers/standin-setup.js';

describe('stand-in engine (fast steps)', () => {
  const dirs = tempDirs();
  let engine: StandinEngine;
  let ws: WsRecorder;

  beforeAll(async () => {
    engine = await startStandinEngine({ port: 0, inputDir: dirs.input, outputDir: dirs.output, tempDir: dirs.temp, stepMs: 10, modelFolders: modelFolders(dirs.root) });
    ws = await WsRecorder.open(engine, 'client-a');
  });
  afterAll(async () => {
    ws.close();
    await engine.close();
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  it('answers system_stats and object_info, bare and under /api', async () => {
    const stats = (await (await fetch(`${engine.url}/api/system_stats`)).json()) as { system: Record<string, unknown>; devices: Array<Record<string, unknown>> };
    expect(stats.system.comfyui_version).toBe('0.29.0-standin');
    // The stand-in has no GPU and claims none: its device is the CPU, named as the stand-in's.
    expect(stats.devices).toHaveLength(1);
    expect(stats.devices[0]).toMatchObject({ type: 'cpu', name: 'cpu (stand-in engine, no GPU)', vram_total: os.totalmem() });
    const info = (await (await fetch(`${engine.url}/object_info`)).json()) as Record<string, { python_module: string }>;
    // The real 0.29.0 node set, plus the custom-pack nodes the shipped workflows use.
    expect(Object.keys(info).length).toBe(820);
    const loader = info.CheckpointLoaderSimple as unknown as { input: { required: { ckpt_name: [string[]] } } };
    expect(loader.input.required.ckpt_name[0]).toEqual([MODEL]);
    expect(await (await fetch(`${engine.url}/models/checkpoints`)).json()).toEqual([MODEL]);
    expect(info.VHS_VideoCombine?.python_module).toBe('custom_nodes.ComfyUI-VideoHelperSuite');
    expect(info.KSampler?.python_module).toBe('nodes');
    expect(await (await fetch(`${engine.url}/api/object_info/NoSuchNode`)).json()).toEqual({});
    const one = (await (await fetch(`${engine.url}/object_info/SaveImage`)).json()) as Record<string, unknown>;
    expect(Object.keys(one)).toEqual(['SaveImage']);
    expect((await fetch(`${engine.url}/nope`)).status).toBe(404);
  });

  it('runs a prompt with the engine event order, previews, a real file, history and /view', async () => {
    expect((await upload(engine, PNG, 'source.png')).json).toEqual({ name: 'source.png', subfolder: '', type: 'input' });
    const listed = (await (await fetch(`${engine.url}/object_info/LoadImage`)).json()) as { LoadImage: { input: { required: { image: [string[]] } } } };
    expect(listed.LoadImage.input.required.image[0]).toContain('source.png');

    const from = ws.mark();
    const posted = await postJson(engine, '/prompt', { prompt: samplerGraph(1, 'job1/final/out'), client_id: 'client-a', extra_data: { preview_method: 'auto' } });
    expect(posted.status).toBe(200);
    expect(posted.json).toMatchObject({ number: 0, node_errors: {} });
    const promptId = posted.json.prompt_id as string;
    const frames = await ws.untilDone(promptId, from);

    // As recorded from the engine: a step is progress_state, progress, then the (type 1) preview.
    const quick = ['progress_state', 'executing', 'progress_state'];
    const step = ['progress_state', 'progress', 'binary'];
    expect(ws.types(from)).toEqual([
      'status', 'status', 'execution_start', 'execution_cached',
      ...quick, ...quick, ...quick,
      'progress_state', 'executing', ...Array.from({ length: 10 }, () => step).flat(), 'progress_state',
      ...quick,
      'progress_state', 'executing', 'executed', 'progress_state',
      'execution_success', 'status', 'executing',
    ]);
    expect(texts(frames, 'executing').map((f) => f.data.node)).toEqual(['1', '5', '6', '2', '4', '3', null]);
    expect(texts(frames, 'progress').map((f) => f.data.value)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(texts(frames, 'progress')[0]?.data).toEqual({ value: 1, max: 10, prompt_id: promptId, node: '2' });
    const binaries = frames.filter((f): f is Extract<Frame, { kind: 'binary' }> => f.kind === 'binary');
    expect(binaries.map((b) => [b.bytes.readUInt32BE(0), b.bytes.readUInt32BE(4)])).toEqual(Array(10).fill([1, 1]));
    expect(binaries[0]?.bytes.subarray(8).equals(JPEG)).toBe(true);

    const ui = { images: [{ filename: 'out_00001_.png', subfolder: 'job1/final', type: 'output' }] };
    expect(texts(frames, 'executed')[0]?.data).toEqual({ node: '3', display_node: '3', output: ui, prompt_id: promptId });
    expect(fs.existsSync(path.join(dirs.output, 'job1/final/out_00001_.png'))).toBe(true);

    const history = (await (await fetch(`${engine.url}/history/${promptId}`)).json()) as Record<string, Record<string, unknown>>;
    const entry = history[promptId] as { prompt: unknown[]; outputs: unknown; status: { status_str: string; completed: boolean; messages: unknown[][] } };
    expect(entry.outputs).toEqual({ '3': ui });
    expect(entry.prompt.slice(0, 2)).toEqual([0, promptId]);
    expect(entry.prompt[4]).toEqual(['3']);
    expect(entry.status.status_str).toBe('success');
    expect(entry.status.completed).toBe(true);
    expect(entry.status.messages.map((m) => m[0])).toEqual(['execution_start', 'execution_cached', 'execution_success']);

    const view = await fetch(`${engine.url}/view?filename=out_00001_.png&subfolder=job1/final&type=output`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await view.arrayBuffer()).equals(fs.readFileSync(path.join(dirs.output, 'job1/final/out_00001_.png')))).toBe(true);
  });

  it('sends no progress at all for a graph without step-reporting nodes, like the engine', async () => {
    const from = ws.mark();
    const posted = await postJson(engine, '/prompt', { prompt: invertGraph('job0/final/inv'), client_id: 'client-a', extra_data: { preview_method: 'auto' } });
    const frames = await ws.untilDone(posted.json.prompt_id as string, from);
    expect(texts(frames, 'progress')).toHaveLength(0);
    expect(frames.filter((f) => f.kind === 'binary')).toHaveLength(0);
    expect(texts(frames, 'execution_success')).toHaveLength(1);
  });

  it('runs a graph naming a model its folders do not hold (a test card), where the engine would refuse it', async () => {
    // Studio's Run page promises that the stand-in runs a not-ready workflow anyway; the listing stays truthful.
    const graph = { ...samplerGraph(9), '1': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'missing.safetensors' } } };
    const from = ws.mark();
    const res = await postJson(engine, '/prompt', { prompt: graph, client_id: 'client-a' });
    expect(res.status).toBe(200);
    const frames = await ws.untilDone(res.json.prompt_id as string, from);
    expect(texts(frames, 'execution_success')).toHaveLength(1);
    const info = (await (await fetch(`${engine.url}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, { input: { required: { ckpt_name: [string[]] } } }>;
    expect(info.CheckpointLoaderSimple!.input.required.ckpt_name[0]).toEqual([MODEL]);
  });

  it('converts images for /view preview= and channel= like the engine', async () => {
    const base = `${engine.url}/view?filename=source.png&type=input`;
    const webp = await fetch(`${base}&preview=webp;50`);
    expect(webp.headers.get('content-type')).toBe('image/webp');
    expect(Buffer.from(await webp.arrayBuffer()).subarray(8, 12).toString()).toBe('WEBP');
    const jpeg = await fetch(`${base}&preview=jpeg;80`);
    expect(jpeg.headers.get('content-type')).toBe('image/jpeg');
    // Asking for alpha turns a JPEG preview into WebP (JPEG has no alpha).
    expect((await fetch(`${base}&preview=jpeg;80&channel=a`)).headers.get('content-type')).toBe('image/webp');
    const alpha = await sharp(Buffer.from(await (await fetch(`${base}&channel=a`)).arrayBuffer())).raw().toBuffer({ resolveWithObject: true });
    expect(alpha.info.channels).toBe(4);
    expect([alpha.data[0], alpha.data[1], alpha.data[2]]).toEqual([0, 0, 0]);
    const rgb = await sharp(Buffer.from(await (await fetch(`${base}&channel=rgb`)).arrayBuffer())).metadata();
    expect(rgb.channels).toBe(3);
  });

  it('sends no sampler previews when the prompt does not ask (the engine default is none)', async () => {
    const from = ws.mark();
    const posted = await postJson(engine, '/prompt', { prompt: samplerGraph(2, 'job2/final/nopreview'), client_id: 'client-a' });
    const frames = await ws.untilDone(posted.json.prompt_id as string, from);
    expect(texts(frames, 'progress').length).toBeGreaterThan(0);
    expect(frames.filter((f) => f.kind === 'binary')).toHaveLength(0);
  });

  it('answers a cross-origin request with an empty 403, like the engine', async () => {
    const res = await fetch(`${engine.url}/system_stats`, { headers: { Origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('');
    expect((await fetch(`${engine.url}/system_stats`, { headers: { Origin: engine.url } })).status).toBe(200);
  });

  it('refuses a prompt_id that is not a canonical UUID, with the recorded body', async () => {
    const res = await postJson(engine, '/prompt', { prompt: invertGraph('job3/final/x'), prompt_id: 'not-a-uuid' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: {
        type: 'invalid_prompt_id',
        message: 'prompt_id must be a valid UUID',
        details: 'prompt_id must be a UUID string in canonical lowercase hyphenated form; omit it to let the server generate one',
        extra_info: {},
      },
      node_errors: {},
    });
  });

  it('serves an identical re-run from the cache without writing a new file', async () => {
    const from = ws.mark();
    const posted = await postJson(engine, '/prompt', { prompt: invertGraph('job4/final/again'), client_id: 'client-a', extra_data: { preview_method: 'auto' } });
    await ws.untilDone(posted.json.prompt_id as string, from);
    const again = ws.mark();
    const rerun = await postJson(engine, '/prompt', { prompt: invertGraph('job4/final/again'), client_id: 'client-a', extra_data: { preview_method: 'auto' } });
    const frames = await ws.untilDone(rerun.json.prompt_id as string, again);
    expect(texts(frames, 'execution_cached')[0]?.data.nodes).toEqual(['1', '2', '3']);
    expect(texts(frames, 'executing').map((f) => f.data.node)).toEqual([null]);
    expect(texts(frames, 'progress')).toHaveLength(0);
    expect(texts(frames, 'executed')[0]?.data.output).toEqual({ images: [{ filename: 'again_00001_.png', subfolder: 'job4/final', type: 'output' }] });
    expect(fs.readdirSync(path.join(dirs.output, 'job4/final'))).toEqual(['again_00001_.png']);
  });

  it('sends binary type 4 previews after the feature_flags handshake', async () => {
    const flagged = await WsRecorder.open(engine, 'client-b', true);
    try {
      const reply = flagged.frames.find((f) => isText(f, 'feature_flags')) as TextFrame;
      expect(reply.data.supports_preview_metadata).toBe(true);
      const before = flagged.mark();
      const warmup = await postJson(engine, '/prompt', { prompt: samplerGraph(7, 'job1/final/first'), client_id: 'client-b' });
      await flagged.untilDone(warmup.json.prompt_id as string, before);
      const from = flagged.mark();
      const posted = await postJson(engine, '/prompt', { prompt: samplerGraph(8, 'job1/final/second'), client_id: 'client-b', extra_data: { preview_method: 'auto' } });
      const promptId = posted.json.prompt_id as string;
      const frames = await flagged.untilDone(promptId, from);
      // The previous prompt had the same loader, text and latent: only sampler, decode and save run.
      expect(texts(frames, 'execution_cached')[0]?.data.nodes).toEqual(['1', '5', '6']);
      const binaries = frames.filter((f): f is Extract<Frame, { kind: 'binary' }> => f.kind === 'binary');
      expect(binaries).toHaveLength(10);
      const first = binaries[0]?.bytes as Buffer;
      expect(first.readUInt32BE(0)).toBe(4);
      const metaLength = first.readUInt32BE(4);
      expect(JSON.parse(first.subarray(8, 8 + metaLength).toString())).toEqual({
        node_id: '2', prompt_id: promptId, display_node_id: '2', parent_node_id: null, real_node_id: '2', image_type: 'image/jpeg',
      });
      expect(first.subarray(8 + metaLength).equals(JPEG)).toBe(true);
      expect(fs.existsSync(path.join(dirs.output, 'job1/final/second_00001_.png'))).toBe(true);
    } finally {
      flagged.close();
    }
  });

  it('refuses invalid prompts the way the engine does', async () => {
    const noPrompt = await postJson(engine, '/prompt', { client_id: 'x' });
    expect(noPrompt.status).toBe(400);
    expect((noPrompt.json.error as Record<string, unknown>).type).toBe('no_prompt');

    const unknown = await postJson(engine, '/prompt', { prompt: { '7': { class_type: 'Nope', inputs: {}, _meta: { title: 'Mystery' } } } });
    expect(unknown.status).toBe(400);
    expect(unknown.json).toEqual({
      error: {
        type: 'missing_node_type',
        message: "Node 'Mystery' not found. The custom node may not be installed.",
        details: "Node ID '#7'",
        extra_info: { node_id: '7', class_type: 'Nope', node_title: 'Mystery' },
      },
      node_errors: {},
    });

    const noOutputs = await postJson(engine, '/prompt', { prompt: { '1': { class_type: 'EmptyImage', inputs: { width: 8, height: 8, batch_size: 1, color: 0 } } } });
    expect((noOutputs.json.error as Record<string, unknown>).type).toBe('prompt_no_outputs');

    const bad = await postJson(engine, '/prompt', {
      prompt: {
        '1': { class_type: 'EmptyImage', inputs: { width: 99999, height: 8, batch_size: 1, color: 0 } },
        '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
        '3': { class_type: 'LoadImage', inputs: { image: 'missing.png' } },
        '4': { class_type: 'PreviewImage', inputs: { images: ['3', 0] } },
        '5': { class_type: 'SaveImage', inputs: { filename_prefix: 'y' } },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toEqual({ type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} });
    const nodeErrors = bad.json.node_errors as Record<string, { errors: Array<Record<string, unknown>>; class_type: string; dependent_outputs: string[] }>;
    expect(Object.keys(nodeErrors).sort()).toEqual(['1', '3', '5']);
    expect(nodeErrors['1']).toMatchObject({ class_type: 'EmptyImage', dependent_outputs: ['2'] });
    expect(nodeErrors['1']?.errors[0]).toMatchObject({
      type: 'value_bigger_than_max',
      message: 'Value 99999 bigger than max of 16384',
      details: 'width',
      extra_info: { input_name: 'width', received_value: 99999 },
    });
    expect(nodeErrors['3']?.errors[0]).toEqual({
      type: 'custom_validation_failed',
      message: 'Custom validation failed for node',
      details: 'image - Invalid image file: missing.png',
      extra_info: { input_name: 'image' },
    });
    expect(nodeErrors['5']?.errors[0]).toMatchObject({ type: 'required_input_missing', details: 'images' });
  });

  it('uploads with the engine naming rules and refuses traversal', async () => {
    const other = Buffer.concat([PNG, Buffer.from('different')]);
    expect((await upload(engine, other, 'clash.png')).json?.name).toBe('clash.png');
    expect((await upload(engine, PNG, 'clash.png')).json?.name).toBe('clash (1).png');
    expect((await upload(engine, PNG, 'clash.png')).json?.name).toBe('clash (1).png');
    expect((await upload(engine, JPEG, 'clash.png')).json?.name).toBe('clash (2).png');
    expect((await upload(engine, other, 'clash.png', { overwrite: 'true' })).json?.name).toBe('clash.png');
    expect(fs.readdirSync(dirs.input).filter((n) => n.startsWith('clash')).sort()).toEqual(['clash (1).png', 'clash (2).png', 'clash.png']);
    expect((await upload(engine, PNG, 'a.png', { subfolder: 'sub/dir', type: 'temp' })).json).toEqual({ name: 'a.png', subfolder: 'sub/dir', type: 'temp' });
    expect(fs.existsSync(path.join(dirs.temp, 'sub/dir/a.png'))).toBe(true);
    expect((await upload(engine, PNG, 'evil.png', { subfolder: '../../escape' })).status).toBe(400);
  });

  it('guards /view paths', async () => {
    const status = async (query: string) => (await fetch(`${engine.url}/view?${query}`)).status;
    expect(await status('filename=../x.png')).toBe(400);
    expect(await status('filename=%2Fetc%2Fpasswd')).toBe(400);
    expect(await status('filename=out_00001_.png&subfolder=../..')).toBe(403);
    expect(await status('filename=nothing.png')).toBe(404);
    expect(await status('filename=source.png&type=input')).toBe(200);
    expect(await status('filename=source.png [input]')).toBe(200);
  });

  it('fails a node on STANDIN_FAIL with execution_error and an error history entry', async () => {
    const from = ws.mark();
    const graph = { ...noiseGraph(1), '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'fail/STANDIN_FAIL' } } };
    const posted = await postJson(engine, '/prompt', { prompt: graph, client_id: 'client-a' });
    const promptId = posted.json.prompt_id as string;
    const frames = await ws.untilDone(promptId, from);
    const error = texts(frames, 'execution_error')[0]?.data;
    expect(error).toMatchObject({
      prompt_id: promptId,
      node_id: '3',
      node_type: 'SaveImage',
      executed: ['1', '2'],
      exception_message: 'Stand-in failure requested by input filename_prefix',
      exception_type: 'RuntimeError',
      current_inputs: { filename_prefix: ['fail/STANDIN_FAIL'] },
    });
    expect(Array.isArray(error?.traceback)).toBe(true);
    expect(ws.types(from).slice(-3)).toEqual(['execution_error', 'status', 'executing']);
    const history = (await (await fetch(`${engine.url}/history/${promptId}`)).json()) as Record<string, { status: { status_str: string; completed: boolean; messages: unknown[][] } }>;
    expect(history[promptId]?.status.status_str).toBe('error');
    expect(history[promptId]?.status.completed).toBe(false);
    expect(history[promptId]?.status.messages.map((m) => m[0])).toContain('execution_error');
  });

  it('fails a save node whose prefix leaves the output folder', async () => {
    const from = ws.mark();
    const posted = await postJson(engine, '/prompt', { prompt: noiseGraph(3, '../../escaped/img'), client_id: 'client-a' });
    const frames = await ws.untilDone(posted.json.prompt_id as string, from);
    expect(texts(frames, 'execution_error')[0]?.data).toMatchObject({ node_id: '3', node_type: 'SaveImage', exception_type: 'Exception' });
    expect(String(texts(frames, 'execution_error')[0]?.data.exception_message)).toContain('Saving image outside the output folder is not allowed');
    expect(fs.existsSync(path.join(dirs.root, '..', 'escaped'))).toBe(false);
  });

  it('deletes and clears history entries', async () => {
    const before = (await (await fetch(`${engine.url}/history`)).json()) as Record<string, unknown>;
    const [first, ...rest] = Object.keys(before);
    expect(rest.length).toBeGreaterThan(0);
    expect((await postJson(engine, '/history', { delete: [first] })).status).toBe(200);
    expect(await (await fetch(`${engine.url}/history/${String(first)}`)).json()).toEqual({});
    const newest = (await (await fetch(`${engine.url}/history?max_items=1`)).json()) as Record<string, unknown>;
    expect(Object.keys(newest)).toEqual([rest[rest.length - 1]]);
    await postJson(engine, '/history', { clear: true });
    expect(await (await fetch(`${engine.url}/api/history`)).json()).toEqual({});
  });

  it('writes VHS, SaveVideo and PreviewImage outputs in the engine shapes', async () => {
    const from = ws.mark();
    const graph = {
      '1': { class_type: 'EmptyImage', inputs: { width: 48, height: 32, batch_size: 8, color: 0 } },
      '2': { class_type: 'VHS_VideoCombine', inputs: { images: ['1', 0], frame_rate: 8, loop_count: 0, filename_prefix: 'vid/%width%x%height%_%date:yyyy%', format: 'video/h264-mp4', pingpong: false, save_output: true } },
      '3': { class_type: 'CreateVideo', inputs: { images: ['1', 0], fps: 8 } },
      '4': { class_type: 'SaveVideo', inputs: { video: ['3', 0], filename_prefix: 'video/clip_%width%x%height%', format: 'auto', codec: 'auto' } },
      '5': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
    };
    const posted = await postJson(engine, '/prompt', { prompt: graph, client_id: 'client-a' });
    expect(posted.status).toBe(200);
    await ws.untilDone(posted.json.prompt_id as string, from);
    const history = (await (await fetch(`${engine.url}/history/${String(posted.json.prompt_id)}`)).json()) as Record<string, { outputs: Record<string, Record<string, Array<Record<string, unknown>>>> }>;
    const outputs = history[posted.json.prompt_id as string]?.outputs ?? {};
    // VHS passes no size to the engine's path helper, so its %width% is 0; SaveVideo passes the real size.
    const vhsFolder = path.join(dirs.output, 'vid');
    expect(outputs['2']?.gifs).toEqual([
      {
        filename: '0x0_%date:yyyy%_00001.mp4', subfolder: 'vid', type: 'output', format: 'video/h264-mp4', frame_rate: 8,
        workflow: '0x0_%date:yyyy%_00001.png', fullpath: path.join(vhsFolder, '0x0_%date:yyyy%_00001.mp4'),
      },
    ]);
    expect(fs.readdirSync(vhsFolder).sort()).toEqual(['0x0_%date:yyyy%_00001.mp4', '0x0_%date:yyyy%_00001.png']);
    expect(outputs['4']).toEqual({ images: [{ filename: 'clip_48x32_00001_.mp4', subfolder: 'video', type: 'output' }], animated: [true] });
    const previews = outputs['5']?.images ?? [];
    expect(previews).toHaveLength(8);
    expect(previews[0]).toMatchObject({ subfolder: '', type: 'temp' });
    expect(String(previews[0]?.filename)).toMatch(/^ComfyUI_temp_[a-z]{5}_00001_\.png$/);
    expect(fs.readdirSync(dirs.temp).filter((n) => n.startsWith('ComfyUI_temp_'))).toHaveLength(8);
  });
});
