/**
 * A job as one ZIP (`GET /api/admin/history/{id}/package`): `job.json`, `input/` (its input
 * image) and `output/` (every file of its folder). Streamed; media that is already compressed is
 * stored as-is, since deflating a PNG or MP4 again costs time and saves nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isContained } from '../http/contained-path.js';
import type { Writable } from 'node:stream';
import type { JobRecord } from '../contracts/jobs.contract.js';

const STORED = new Set(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.mp4', '.webm', '.mov', '.avi', '.mkv', '.zip', '.safetensors']);

/** Whether a file should be stored without compression. */
function isStoredExtension(file: string): boolean {
  return STORED.has(path.extname(file).toLowerCase());
}

/** Stream the package of `job` into `out`; resolves when the archive is finalized. */
export async function writeJobPackage(job: JobRecord, dirs: { input: string; output: string }, out: Writable): Promise<void> {
  // The archive library loads with the first ZIP, not at start (it pulls in dozens of stream modules).
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: 6 } });
  const failed = new Promise<never>((_, reject) => zip.on('error', reject));
  zip.pipe(out);
  zip.append(JSON.stringify(job, null, 2), { name: 'job.json' });
  if (job.input_image) {
    const input = path.join(dirs.input, job.input_image);
    if (isInside(dirs.input, input) && isContained(dirs.input, input)) zip.file(input, { name: `input/${path.basename(job.input_image)}`, store: isStoredExtension(input) } as never);
  }
  if (job.output_dir) {
    const folder = path.join(dirs.output, job.output_dir);
    if (isInside(dirs.output, folder) && isContained(dirs.output, folder)) {
      for (const file of listFiles(folder)) {
        const rel = path.relative(folder, file).split(path.sep).join('/');
        zip.file(file, { name: `output/${rel}`, store: isStoredExtension(file) } as never);
      }
    }
  }
  await Promise.race([zip.finalize(), failed]);
}

/** Every regular, non-hidden file below `dir`, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(full);
    }
  };
  walk(dir);
  return out;
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
