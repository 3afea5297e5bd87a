/**
 * A job as one ZIP (`GET /api/admin/history/{id}/package`): `job.json`, `lock.json` (what it ran
 * on, when a lock was recorded), `input/` (its input image) and `output/` (every file of its folder). Streamed by Studio's one ZIP writer; media that
 * is already compressed is stored as-is.
 */
import path from 'node:path';
import type { Writable } from 'node:stream';
import { isBelow, isContained } from '../http/contained-path.js';
import { isStoredInZip } from '../media-types.js';
import { filesBelow, writeZip, type ZipDataEntry, type ZipFileEntry } from '../zip-writer.js';
import type { JobRecord } from '../contracts/jobs.contract.js';

/** Stream the package of `job` into `out`; resolves when the archive is finalized. */
export async function writeJobPackage(job: JobRecord, dirs: { input: string; output: string }, out: Writable, lock?: unknown): Promise<void> {
  const entries: Array<ZipFileEntry | ZipDataEntry> = [{ name: 'job.json', bytes: Buffer.from(JSON.stringify(job, null, 2)) }];
  if (lock) entries.push({ name: 'lock.json', bytes: Buffer.from(JSON.stringify(lock, null, 2)) });
  if (job.input_image) {
    const input = path.join(dirs.input, job.input_image);
    if (isBelow(dirs.input, input) && isContained(dirs.input, input)) entries.push({ file: input, name: `input/${path.basename(job.input_image)}`, store: isStoredInZip(input) });
  }
  if (job.output_dir) {
    const folder = path.join(dirs.output, job.output_dir);
    if (isBelow(dirs.output, folder) && isContained(dirs.output, folder)) {
      for (const { file, name } of filesBelow(folder)) entries.push({ file, name: `output/${name}`, store: isStoredInZip(name) });
    }
  }
  await writeZip(entries, out);
}
