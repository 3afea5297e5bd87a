/**
 * What Studio adds to a job on a real engine (needs ENGINE_DIR + ENGINE_PYTHON, see
 * ../shared/real-engine): from `POST execute` to the engine's `execution_start`, and from the
 * engine's `execution_success` to Studio's `job.completed` on its WebSocket, each as a ratio to
 * the whole job. The engine's own timestamps come from its history (same machine clock).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execute, uploadSample } from '../helpers/runner.js';
import { freePort } from '../helpers/ports.js';
import { startTestStudio } from '../helpers/studio.js';
import { connectStudioWs, until } from '../helpers/studio-ws.js';

const RUNS = 8;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Run the engine overhead benchmark and print its lines. */
export async function run(): Promise<void> {
  const engineDir = process.env.ENGINE_DIR;
  const enginePython = process.env.ENGINE_PYTHON;
  if (!engineDir || !enginePython) {
    console.log('engine overhead: skipped (set ENGINE_DIR and ENGINE_PYTHON to a real engine; ../shared/real-engine/setup.sh builds one)');
    return;
  }
  // Beside the engine: an engine in a chroot sees only its own tree.
  const dir = fs.mkdtempSync(path.join(path.dirname(engineDir), 'studio-bench-'));
  const t = await startTestStudio({
    startEngine: true,
    dir,
    env: { ENGINE_MODE: 'managed', ENGINE_DIR: engineDir, ENGINE_PYTHON: enginePython, ENGINE_PORT: String(await freePort()), PATH: process.env.PATH ?? '', HOME: os.homedir() },
  });
  try {
    await t.studio.engineReady(150_000);
    const ws = await connectStudioWs(t.url, t.apiKey);
    const image = await uploadSample(t.api, 'bench.png');
    const before: number[] = [];
    const after: number[] = [];
    const whole: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const t0 = Date.now();
      const { prompt_id } = await execute(t.api, 'image-filter', { params: { _existing_input_image: image, seed: 1000 + i } });
      await until(() => ws.ofType('job.completed').some((f) => f.data.prompt_id === prompt_id), 'job.completed', 60_000);
      const t3 = Date.now();
      const history = (await (await fetch(`${t.studio.engine.url}/history/${prompt_id}`)).json()) as Record<string, { status: { messages: Array<[string, { timestamp: number }]> } }>;
      const messages = history[prompt_id]!.status.messages;
      const t1 = messages.find(([type]) => type === 'execution_start')![1].timestamp;
      const t2 = messages.find(([type]) => type === 'execution_success')![1].timestamp;
      if (i === 0) continue; // warm-up: the first run loads the nodes' code
      before.push(t1 - t0);
      after.push(t3 - t2);
      whole.push(t3 - t0);
    }
    await ws.close();
    const [b, a, w] = [median(before), median(after), median(whole)];
    console.log(`job overhead on a real engine (image-filter, median of ${RUNS}): whole job ${w} ms`);
    console.log(`  execute → engine execution_start ${b} ms (ratio ${(b / w).toFixed(3)}); engine execution_success → Studio job.completed ${a} ms (ratio ${(a / w).toFixed(3)})`);
  } finally {
    await t.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
