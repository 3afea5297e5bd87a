/**
 * The stand-in engine's queue, interrupts and in-flight history (slow steps), reconnects, recorded
 * object_info dumps, and its command line.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';
import { REPO, JOB_A, JOB_B, FIXTURES, WsRecorder, isText, texts, tempDirs, postJson, samplerGraph, modelFolders } from '../../helpers/standin-setup.js';

describe('stand-in engine (slow steps: queue, interrupt, in-flight history)', () => {
  const dirs = tempDirs();
  let engine: StandinEngine;
  let ws: WsRecorder;

  beforeAll(async () => {
    engine = await startStandinEngine({ port: 0, inputDir: dirs.input, outputDir: dirs.output, stepMs: 150, modelFolders: modelFolders(dirs.root) });
    ws = await WsRecorder.open(engine, 'client-s');
  });
  afterAll(async () => {
    ws.close();
    await engine.close();
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  it('shows the queue, deletes pending prompts and interrupts only the named running prompt', async () => {
    const from = ws.mark();
    const a = await postJson(engine, '/prompt', { prompt: samplerGraph(1), client_id: 'client-s', prompt_id: JOB_A });
    const b = await postJson(engine, '/prompt', { prompt: samplerGraph(2), client_id: 'client-s', prompt_id: JOB_B });
    expect([a.json.prompt_id, b.json.prompt_id]).toEqual([JOB_A, JOB_B]);
    await ws.waitFor((f) => isText(f, 'progress') && f.data.prompt_id === JOB_A, from);

    expect(await (await fetch(`${engine.url}/history/job-a`)).json()).toEqual({});
    expect(await (await fetch(`${engine.url}/prompt`)).json()).toEqual({ exec_info: { queue_remaining: 2 } });
    const queue = (await (await fetch(`${engine.url}/queue`)).json()) as { queue_running: unknown[][]; queue_pending: unknown[][] };
    expect(queue.queue_running.map((item) => item[1])).toEqual([JOB_A]);
    expect(queue.queue_pending.map((item) => item[1])).toEqual([JOB_B]);
    expect(queue.queue_running[0]).toHaveLength(5);

    expect((await postJson(engine, '/queue', { delete: [JOB_B, JOB_A] })).status).toBe(200);
    const after = (await (await fetch(`${engine.url}/queue`)).json()) as { queue_running: unknown[][]; queue_pending: unknown[][] };
    expect(after.queue_pending).toEqual([]);
    expect(after.queue_running.map((item) => item[1])).toEqual([JOB_A]);

    // Naming another prompt must not stop this one: the next frame is still progress.
    const beforeNoop = ws.mark();
    await postJson(engine, '/interrupt', { prompt_id: JOB_B });
    const next = await ws.waitFor((f) => isText(f, 'progress') || isText(f, 'execution_interrupted'), beforeNoop);
    expect(next.kind === 'text' && next.type).toBe('progress');

    await postJson(engine, '/interrupt', { prompt_id: JOB_A });
    const frames = await ws.untilDone(JOB_A, from);
    expect(texts(frames, 'execution_interrupted')[0]?.data).toMatchObject({ prompt_id: JOB_A, node_id: '2', node_type: 'KSampler', executed: ['1', '5', '6'] });
    const history = (await (await fetch(`${engine.url}/history`)).json()) as Record<string, { status: { status_str: string; completed: boolean } }>;
    expect(Object.keys(history)).toEqual([JOB_A]);
    expect(history[JOB_A]?.status).toMatchObject({ status_str: 'error', completed: false });
    expect(await (await fetch(`${engine.url}/history/job-b`)).json()).toEqual({});
  });
});

describe('stand-in engine (reconnect)', () => {
  const dirs = tempDirs();
  let engine: StandinEngine;

  beforeAll(async () => {
    engine = await startStandinEngine({ port: 0, inputDir: dirs.input, outputDir: dirs.output, stepMs: 100, modelFolders: modelFolders(dirs.root) });
  });
  afterAll(async () => {
    await engine.close();
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  it('re-sends the running node to a reconnecting client and keeps routing to the new socket', async () => {
    const old = await WsRecorder.open(engine, 'client-r');
    const posted = await postJson(engine, '/prompt', { prompt: samplerGraph(4), client_id: 'client-r' });
    const promptId = posted.json.prompt_id as string;
    await old.waitFor((f) => isText(f, 'progress'));
    const fresh = await WsRecorder.open(engine, 'client-r');
    const resent = await fresh.waitFor((f) => isText(f, 'executing'));
    expect(resent.kind === 'text' && resent.data).toEqual({ node: '2' });
    // Closing the replaced socket must not unregister the new one (the engine's issue #16010).
    old.close();
    const frames = await fresh.untilDone(promptId, 0);
    expect(texts(frames, 'progress').length).toBeGreaterThan(0);
    expect(texts(frames, 'execution_success')).toHaveLength(1);
    fresh.close();
  });
});

describe('stand-in engine with --object-info dumps', () => {
  for (const file of ['object_info.core-2025-10.json', 'object_info.sample.json']) {
    it(`serves ${file} and runs a prompt against it`, async () => {
      const dirs = tempDirs();
      const engine = await startStandinEngine({ port: 0, inputDir: dirs.input, outputDir: dirs.output, stepMs: 1, objectInfoFile: path.join(FIXTURES, file) });
      try {
        const served = (await (await fetch(`${engine.url}/object_info`)).json()) as Record<string, unknown>;
        const dump = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as Record<string, unknown>;
        expect(Object.keys(served)).toEqual(Object.keys(dump));
        const graph = {
          '1': { class_type: 'EmptyImage', inputs: { width: 16, height: 16, batch_size: 1, color: 0 } },
          '2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'dump/img' } },
        };
        const posted = await postJson(engine, '/prompt', { prompt: graph });
        expect(posted.status).toBe(200);
        const id = posted.json.prompt_id as string;
        let entry: Record<string, unknown> = {};
        while (!entry[id]) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          entry = (await (await fetch(`${engine.url}/history/${id}`)).json()) as Record<string, unknown>;
        }
        expect(fs.existsSync(path.join(dirs.output, 'dump/img_00001_.png'))).toBe(true);
      } finally {
        await engine.close();
        fs.rmSync(dirs.root, { recursive: true, force: true });
      }
    });
  }
});

describe('stand-in CLI', () => {
  it('prints its port, answers /system_stats and exits 0 on SIGTERM', async () => {
    const dirs = tempDirs();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'server/standin/main.ts', '--port', '0', '--input-directory', dirs.input, '--output-directory', dirs.output, '--step-ms', '5'],
      { cwd: REPO, env: { ...process.env, STUDIO_DIR: path.join(dirs.root, 'studio') }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /Stand-in engine listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${out}`)));
      });
      const stats = (await (await fetch(`${url}/system_stats`)).json()) as { system: { argv: string[] } };
      expect(stats.system.argv).toContain(dirs.output);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dirs.root, { recursive: true, force: true });
    }
  });
});
