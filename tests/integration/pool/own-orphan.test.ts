/**
 * Studio is SIGKILLed while its own stand-in engine works, and started again at once on the same
 * data folder. The killed Studio's engine keeps working for a while (an orphan, as a real engine's
 * would): the new Studio knows it by the record in its data folder, so it does not adopt it as an
 * external engine (the orphan would vanish under it and leave the local engine dead); it reads
 * the orphan's history first — a job the orphan finished is completed with its outputs, not lost
 * and run again — then ends it and starts an engine of its own, which takes new jobs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execute, plantModels, waitForJob } from '../../helpers/runner.js';
import { freePort } from '../../helpers/ports.js';
import { isAlive } from '../../helpers/process-state.js';
import { startStudioProcess, type StudioProcess } from '../../helpers/studio-process.js';
import { until } from '../../helpers/studio-ws.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-own-orphan-'));
const procs: StudioProcess[] = [];
let orphanPid = 0;

afterAll(async () => {
  for (const p of procs) await p.stop();
  if (orphanPid && isAlive(orphanPid)) process.kill(orphanPid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const json = async <T>(res: Response) => (await res.json()) as T;
const images = (folder: string) => (fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true }).map(String).filter((f) => /\.(png|webp|jpg)$/.test(f)) : []);

describe('a Studio killed and started again at once, its engine still running', () => {
  it('ends its own orphan instead of adopting it, after finishing from its history the job it completed', async () => {
    plantModels(dir, { checkpoints: ['sd_xl_base_1.0.safetensors'] });
    const port = await freePort();
    const env = { STUDIO_DIR: dir, ENGINE_PORT: String(port), STANDIN_STEP_MS: '150', STANDIN_NODE_MS: '20' };
    const first = await startStudioProcess(env);
    procs.push(first);
    await localOnline(first);
    const record = path.join(dir, 'engine', `engine-child-${port}.json`);
    orphanPid = readRecord(record).pid;

    // One short job running when Studio dies; the orphan finishes it.
    const done = (await execute(first.api, 'txt2img-sdxl', { params: { positive: 'finished by the orphan', steps: 4 } })).prompt_id;
    await until(async () => (await json<Array<{ prompt_id: string; status: string }>>(await first.api('/api/admin/queue'))).some((j) => j.prompt_id === done && j.status === 'running'), 'the job running', 30_000);
    await first.kill();
    await until(async () => {
      const history = await json<Record<string, { status?: { status_str?: string } }>>(await fetch(`http://127.0.0.1:${port}/history/${done}`));
      return history[done]?.status?.status_str === 'success';
    }, 'the job finished on the orphan', 30_000);
    expect(isAlive(orphanPid)).toBe(true);

    const second = await startStudioProcess(env);
    procs.push(second);
    // Its own engine, not the orphan taken for an external one; the orphan is gone.
    expect(second.output()).not.toMatch(/Engine: external/);
    await localOnline(second);
    expect(isAlive(orphanPid)).toBe(false);
    const job = await waitForJob(second.api, done, ['completed', 'error', 'stalled'], 60_000);
    expect(job.status).toBe('completed');
    const recordOf = await json<{ output_dir: string }>(await second.api(`/api/admin/history/${done}`));
    expect(images(path.join(dir, 'assets', 'output', recordOf.output_dir))).not.toEqual([]);

    // The local engine is Studio's own and stays up: a new job runs on it, well after the orphan would have gone.
    await new Promise((r) => setTimeout(r, 3_000));
    const next = (await execute(second.api, 'txt2img-sdxl', { params: { positive: 'after the restart', steps: 2 } })).prompt_id;
    expect((await waitForJob(second.api, next, ['completed', 'error', 'stalled'], 60_000)).status).toBe('completed');
    expect(readRecord(record).pid).not.toBe(orphanPid);
  }, 150_000);
});

async function localOnline(studio: StudioProcess): Promise<void> {
  await until(async () => (await json<{ engines: Array<{ id: string; status: string }> }>(await studio.api('/api/admin/engines'))).engines[0]?.status === 'online', 'the local engine online', 60_000);
}

function readRecord(file: string): { pid: number } {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number };
}
