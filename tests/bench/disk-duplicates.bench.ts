/**
 * The disk page's duplicate scan over 2 000 model files of 2.5 MB each (5 GB, one size so every
 * file must be hashed; 100 of them copies of others), over HTTP: the first scan (hashing every
 * file) against `sha256sum` of the same files in the same run, and the second scan (hashes stored
 * in SQLite, files unchanged). Targets (issue 27): first within 1.2× of `sha256sum`; second < 1 s.
 * The page cache is warmed first so both sides read from memory, not the disk.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStudio, TEST_API_KEY as API_KEY } from '../helpers/studio.js';

const FILE_BYTES = 2_500_000;

/** Run the duplicate-scan benchmark and print its line. */
export async function run(_root: string, count = 2000): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-bench-disk-'));
  const files: string[] = [];
  const block = crypto.randomBytes(FILE_BYTES);
  for (let i = 0; i < count; i++) {
    const folder = path.join(dir, 'models', ['checkpoints', 'loras', 'vae', 'diffusion_models'][i % 4]!);
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `model_${String(i).padStart(4, '0')}.safetensors`);
    // The last 100 files repeat earlier ones; the rest differ in their first bytes.
    const id = i >= count - 100 ? i - (count - 100) : i;
    const data = Buffer.from(block);
    data.writeUInt32LE(id, 0);
    fs.writeFileSync(file, data);
    files.push(file);
  }
  const warm = () => spawnSync('cat', files, { stdio: ['ignore', 'ignore', 'inherit'] });
  const studio = await startTestStudio({ dir, env: { ENGINE_MODE: 'external' } });
  try {
    warm();
    let started = performance.now();
    spawnSync('sha256sum', files, { stdio: ['ignore', 'ignore', 'inherit'] });
    const reference = performance.now() - started;

    const scan = async () => {
      const res = await fetch(`${studio.url}/api/admin/disk/duplicates`, { headers: { 'X-API-Key': API_KEY } });
      return (await res.json()) as { groups: unknown[]; files_scanned: number; files_hashed: number };
    };
    warm();
    started = performance.now();
    const first = await scan();
    const firstMs = performance.now() - started;
    started = performance.now();
    const second = await scan();
    const secondMs = performance.now() - started;
    console.log(
      `disk-duplicates ${first.files_scanned} files (${((count * FILE_BYTES) / 1e9).toFixed(1)} GB), ${first.groups.length} duplicate groups: first scan ${firstMs.toFixed(0)} ms (${first.files_hashed} hashed), sha256sum ${reference.toFixed(0)} ms, ratio ${(firstMs / reference).toFixed(2)} (target ≤ 1.2); second scan ${secondMs.toFixed(0)} ms (${second.files_hashed} hashed; target < 1000 ms)`,
    );
  } finally {
    await studio.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
