/**
 * The outputs as one streamed ZIP (spec: `GET /api/admin/outputs-zip`): entries keep their path
 * under the output directory, media is stored without recompression (deflating a PNG or an MP4
 * costs time and saves nothing), and nothing is held in memory beyond the stream buffers.
 */
import type { Writable } from 'node:stream';
import { isStoredInZip } from '../media-types.js';
import { fileStamp } from '../time.js';
import { filesBelow, writeZip } from '../zip-writer.js';

/** Stream a ZIP of `root` (the files `keep` takes, by their entry name) into `out`; resolves when finalized, rejects on a read error or `signal`. */
export async function writeDirectoryZip(root: string, out: Writable, signal?: AbortSignal, keep: (name: string) => boolean = () => true): Promise<void> {
  const entries = filesBelow(root)
    .filter(({ name }) => keep(name))
    .map(({ file, name }) => ({ file, name, store: isStoredInZip(name) }));
  await writeZip(entries, out, { signal });
}

/** `outputs_20261122-142233.zip` (local time). */
export function outputsZipName(now = new Date()): string {
  return `outputs_${fileStamp(now)}.zip`;
}
