/**
 * Gallery benchmarks, each against a reference measured in the same run:
 * - thumbnails of 500 JPEGs of 2048×2048 (what the gallery fetch makes per image: sharp, at most
 *   320 px, JPEG q78) one after another as the fetch does, and two at a time, vs one
 *   `vipsthumbnail -s 320` run over the same files (libvips' own CLI, Debian's libvips-tools).
 *   Target: ratio ≤ 1.3.
 * - `GET /api/admin/loras/{model_id}/gallery` with 5 000 items, over HTTP, right after a write
 *   (built again) and unchanged (kept in memory), vs the same SELECT
 *   (which builds the JSON in SQLite) through better-sqlite3 alone, the floor. Target: under 50 ms.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { writeJpegThumb as writeThumb } from '../../server/assets/jpeg-thumb.js';
import { GalleryStore } from '../../server/modelhub/gallery.store.js';
import { startTestStudio, TEST_API_KEY as API_KEY } from '../helpers/studio.js';
import { missingTools, skipped } from './outside-tools.js';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Distinct 2048×2048 photos-like JPEGs (gradients, shapes and grain), copied up to `count` files. */
async function makeImages(dir: string, count: number): Promise<string[]> {
  const bases: Buffer[] = [];
  for (let b = 0; b < 8; b++) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2048" height="2048"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="hsl(${b * 45},70%,40%)"/><stop offset="1" stop-color="hsl(${b * 45 + 120},60%,70%)"/></linearGradient></defs>
      <rect width="2048" height="2048" fill="url(#g)"/>${Array.from({ length: 40 }, (_, i) => `<circle cx="${(i * 373 + b * 97) % 2048}" cy="${(i * 211 + b * 53) % 2048}" r="${60 + ((i * 37) % 200)}" fill="hsl(${(i * 29 + b * 11) % 360},65%,55%)" fill-opacity="0.6"/>`).join('')}</svg>`;
    const grain = await sharp({ create: { width: 2048, height: 2048, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 0, sigma: 12 } } }).png().toBuffer();
    bases.push(await sharp(Buffer.from(svg)).composite([{ input: grain, blend: 'add' }]).jpeg({ quality: 88 }).toBuffer());
  }
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(dir, `img_${String(i).padStart(4, '0')}.jpg`);
    fs.writeFileSync(file, bases[i % bases.length]!);
    files.push(file);
  }
  return files;
}

async function thumbnails(count: number): Promise<void> {
  const missing = missingTools('vipsthumbnail');
  if (missing) return skipped('gallery-thumbnails', missing);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gallery-bench-'));
  try {
    const files = await makeImages(dir, count);
    const mb = files.reduce((sum, f) => sum + fs.statSync(f).size, 0) / 1024 ** 2;
    const out = (name: string) => {
      const target = path.join(dir, name);
      fs.rmSync(target, { recursive: true, force: true });
      fs.mkdirSync(target);
      return target;
    };
    // Warm the page cache and both libraries once.
    for (const f of files) fs.readFileSync(f);
    await writeThumb(files[0]!, path.join(out('warm'), 'x.jpg'), 320);

    const ours = out('ours');
    let started = performance.now();
    for (const [i, f] of files.entries()) await writeThumb(f, path.join(ours, `${i}.thumb.jpg`), 320);
    const sequential = performance.now() - started;

    const pair = out('pair');
    started = performance.now();
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        for (let i = next++; i < files.length; i = next++) await writeThumb(files[i]!, path.join(pair, `${i}.thumb.jpg`), 320);
      }),
    );
    const twoAtATime = performance.now() - started;

    const vips = out('vips');
    started = performance.now();
    const result = spawnSync('vipsthumbnail', ['-s', '320', '-o', `${vips}/%s.jpg[Q=78]`, ...files], { stdio: ['ignore', 'ignore', 'inherit'] });
    const reference = performance.now() - started;
    if (result.status !== 0) throw new Error(`vipsthumbnail failed (${result.error?.message ?? result.status})`);

    const sample = await sharp(path.join(ours, '0.thumb.jpg')).metadata();
    console.log(
      `gallery-thumbnails (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)  ${count} JPEGs 2048x2048 (${mb.toFixed(0)} MiB) -> ${sample.width}x${sample.height}: studio ${sequential.toFixed(0)} ms one at a time (${(sequential / count).toFixed(1)} ms each), ${twoAtATime.toFixed(0)} ms two at a time; vipsthumbnail ${reference.toFixed(0)} ms; ratio ${(sequential / reference).toFixed(2)} (two at a time ${(twoAtATime / reference).toFixed(2)}; target <= 1.3)`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function listing(items: number, runs: number): Promise<void> {
  const studio = await startTestStudio({ env: { ENGINE_MODE: 'external' } });
  try {
    const store = new GalleryStore(studio.studio.db);
    const item = JSON.stringify({ id: 0, url: 'https://image.example/x.jpeg', meta: { prompt: 'a fox in the snow, '.repeat(20), seed: 1, steps: 30 } });
    studio.studio.db.transaction(() => {
      for (let i = 0; i < items; i++) {
        store.put({
          model_id: '12',
          id: 100_000 + i,
          source: i % 10 === 0 ? 'original' : 'community',
          media_type: i % 25 === 0 ? 'video' : 'image',
          content_type: i % 25 === 0 ? 'video/mp4' : 'image/jpeg',
          file: `12/community/${100_000 + i}.jpg`,
          thumb: `12/community/${100_000 + i}.thumb.jpg`,
          bytes: 400_000,
          width: 832,
          height: 1216,
          version_id: '102',
          username: `user${i % 97}`,
          created_at: new Date(1_750_000_000_000 + i * 60_000).toISOString(),
          created_ms: 1_750_000_000_000 + i * 60_000,
          starred: i % 50 === 0 ? 1 : 0,
          item,
          fetched_at: '2026-11-25T03:00:00.000+01:00',
        });
      }
    })();
    const url = `${studio.url}/api/admin/loras/12/gallery`;
    const get = async () => {
      const started = performance.now();
      const text = await (await fetch(url, { headers: { 'X-API-Key': API_KEY } })).text();
      return { ms: performance.now() - started, text };
    };
    let count = 0;
    let bytes = 0;
    const coldRuns: number[] = [];
    const warmRuns: number[] = [];
    const sqlRuns: number[] = [];
    for (let i = 0; i < runs + 1; i++) {
      // A star toggle is a write: the next listing is built again (cold); the one after is kept (warm).
      await fetch(`${studio.url}/api/admin/loras/gallery/100000/star`, { method: 'POST', headers: { 'X-API-Key': API_KEY } });
      const cold = await get();
      const warm = await get();
      const started = performance.now();
      new GalleryStore(studio.studio.db).listJson('12');
      const sql = performance.now() - started;
      if (i === 0) continue;
      coldRuns.push(cold.ms);
      warmRuns.push(warm.ms);
      sqlRuns.push(sql);
      bytes = cold.text.length;
      count = (JSON.parse(cold.text) as { items: unknown[] }).items.length;
    }
    const [c, w, s] = [median(coldRuns), median(warmRuns), median(sqlRuns)];
    console.log(
      `gallery-listing ${count} items (${(bytes / 1024 ** 2).toFixed(2)} MiB JSON): studio ${c.toFixed(1)} ms over HTTP after a write, ${w.toFixed(1)} ms unchanged (kept); the SELECT building the JSON alone ${s.toFixed(1)} ms; ratio ${(c / s).toFixed(2)} (target < 50 ms, median of ${runs}; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)`,
    );
  } finally {
    await studio.stop();
  }
}

/** Run the gallery benchmarks and print their lines. */
export async function run(_root: string, images = 500, items = 5000): Promise<void> {
  await thumbnails(images);
  await listing(items, 9);
}
