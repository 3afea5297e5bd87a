/**
 * `GET /api/admin/outputs-zip` over about 2 GiB of media in 1 000 job folders (each: a 1.6 MiB
 * video and two 200 KiB previews), fetched with curl into a file, against `zip -0 -r` of the same
 * tree in the same run. `run(root, totalBytes, folders)` scales it down for a quick look; the
 * size used is printed. Target: `TARGETS.outputsZip`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStudio, TEST_API_KEY as API_KEY } from '../helpers/studio.js';
import { missingTools, skipped } from './outside-tools.js';
import { skippedRow, TARGETS, type TargetRow } from './targets.js';


function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Time a command run asynchronously (the Studio under test shares this process's event loop). */
async function timed(command: string, args: string[], cwd?: string): Promise<number> {
  spawnSync('sync');
  const started = performance.now();
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  const [code] = (await once(child, 'exit')) as [number | null];
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${command} exited with ${code}`);
  return ms;
}

/** Run the outputs ZIP benchmark and print its lines. */
export async function run(_root: string, totalBytes = 2 * 1024 ** 3, folders = 1000, runs = 3): Promise<TargetRow[]> {
  const measure = `outputs ZIP of ${(totalBytes / 1024 ** 3).toFixed(totalBytes < 1024 ** 3 ? 2 : 0)} GiB`;
  const missing = missingTools('curl', 'zip', 'unzip');
  if (missing) {
    skipped('outputs-zip', missing);
    return [skippedRow(measure, '≤ 1.2× zip -0 -r', missing)];
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-'));
  const output = path.join(dir, 'assets', 'output');
  const perFolder = Math.floor(totalBytes / folders);
  const preview = Math.floor(perFolder / 10);
  const videoData = randomBytes(perFolder - 2 * preview);
  const previewData = randomBytes(preview);
  for (let i = 0; i < folders; i++) {
    const job = path.join(output, `job_${String(i).padStart(4, '0')}`);
    fs.mkdirSync(path.join(job, 'final'), { recursive: true });
    fs.mkdirSync(path.join(job, 'preview'), { recursive: true });
    fs.writeFileSync(path.join(job, 'final', 'video.mp4'), videoData);
    fs.writeFileSync(path.join(job, 'preview', 'p1.png'), previewData);
    fs.writeFileSync(path.join(job, 'preview', 'p2.png'), previewData);
  }
  // Files are served from disk: no engine is needed.
  const studio = await startTestStudio({ dir, env: { ENGINE_MODE: 'external' } });
  const studioZip = path.join(dir, 'studio.zip');
  const refZip = path.join(dir, 'ref.zip');
  const studioRuns: number[] = [];
  const refRuns: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      fs.rmSync(studioZip, { force: true });
      studioRuns.push(await timed('curl', ['-sf', '-o', studioZip, '-H', `X-API-Key: ${API_KEY}`, `${studio.url}/api/admin/outputs-zip`]));
      fs.rmSync(refZip, { force: true });
      refRuns.push(await timed('zip', ['-0', '-r', '-q', refZip, '.'], output));
    }
    const entries = spawnSync('unzip', ['-Z1', studioZip], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout.trim().split('\n').length;
    if (entries !== folders * 3) throw new Error(`the ZIP has ${entries} entries, expected ${folders * 3}`);
  } finally {
    await studio.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const [s, r] = [median(studioRuns), median(refRuns)];
  const gib = (perFolder * folders) / 1024 ** 3;
  console.log(`outputs-zip ${gib.toFixed(2)} GiB in ${folders} job folders: studio ${s.toFixed(0)} ms, zip -0 -r ${r.toFixed(0)} ms, time ratio ${(s / r).toFixed(2)} (target ${TARGETS.outputsZip.text}, median of ${runs})`);
  return [{ measure, target: TARGETS.outputsZip.text, value: `${(s / r).toFixed(2)}× (${s.toFixed(0)} vs ${r.toFixed(0)} ms)`, met: s / r <= TARGETS.outputsZip.ratio }];
}
