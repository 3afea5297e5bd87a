/**
 * `GET /api/admin/assets/outputs` with 20 000 files in 2 000 job folders (each: a video, four
 * previews, five intermediates), timed over HTTP, against `find -printf` of the same tree (a C
 * tool doing the same readdir + stat work) in the same run. Target: under 300 ms.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStudio, TEST_API_KEY as API_KEY } from '../helpers/studio.js';


function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Run the assets listing benchmark and print its lines. */
export async function run(_root: string, folders = 2000, runs = 9): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
  const output = path.join(dir, 'assets', 'output');
  const small = Buffer.alloc(2048, 7);
  for (let i = 0; i < folders; i++) {
    const job = path.join(output, `job_${String(i).padStart(4, '0')}`);
    for (const sub of ['final', 'preview', 'intermediate']) fs.mkdirSync(path.join(job, sub), { recursive: true });
    fs.writeFileSync(path.join(job, 'final', 'video.mp4'), small);
    for (let p = 0; p < 4; p++) fs.writeFileSync(path.join(job, 'preview', `preview_${p}.png`), small);
    for (let p = 0; p < 5; p++) fs.writeFileSync(path.join(job, 'intermediate', `step_${p}.png`), small);
  }
  // Files are served from disk: no engine is needed.
  const studio = await startTestStudio({ dir, env: { ENGINE_MODE: 'external' } });
  const studioRuns: number[] = [];
  const findRuns: number[] = [];
  let bytes = 0;
  let files = 0;
  try {
    const get = async () => {
      const res = await fetch(`${studio.url}/api/admin/assets/outputs`, { headers: { 'X-API-Key': API_KEY } });
      const body = (await res.json()) as { studio_jobs: Array<{ previews: unknown[]; intermediates: unknown[]; video?: unknown }> };
      files = body.studio_jobs.reduce((sum, job) => sum + job.previews.length + job.intermediates.length + (job.video ? 1 : 0), 0);
      return body;
    };
    await get();
    for (let i = 0; i < runs; i++) {
      let started = performance.now();
      const res = await fetch(`${studio.url}/api/admin/assets/outputs`, { headers: { 'X-API-Key': API_KEY } });
      bytes = (await res.arrayBuffer()).byteLength;
      studioRuns.push(performance.now() - started);
      started = performance.now();
      spawnSync('find', [output, '-type', 'f', '-printf', '%s %T@ %p\\n'], { stdio: ['ignore', 'ignore', 'inherit'] });
      findRuns.push(performance.now() - started);
    }
    await get();
  } finally {
    await studio.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const [s, f] = [median(studioRuns), median(findRuns)];
  console.log(
    `assets-listing ${files} files in ${folders} job folders: studio ${s.toFixed(0)} ms (${(bytes / 1024 ** 2).toFixed(1)} MiB JSON), find -printf ${f.toFixed(0)} ms, ratio ${(s / f).toFixed(2)} (target < 300 ms, median of ${runs})`,
  );
}
