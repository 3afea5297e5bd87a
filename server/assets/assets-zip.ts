/**
 * The outputs as one streamed ZIP (spec: `GET /api/admin/outputs-zip`): entries keep their path
 * under the output directory, media is stored without recompression (deflating a PNG or an MP4
 * costs time and saves nothing), and nothing is held in memory beyond the stream buffers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { isStoredInZip } from '../media-types.js';
import { writeZip } from './zip-writer.js';

/** Every regular, non-hidden file below `root` as `{full, rel}`, sorted by path. */
function zipEntries(root: string): Array<{ full: string; rel: string }> {
  const out: Array<{ full: string; rel: string }> = [];
  const walk = (dir: string, rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(full, name);
      else if (entry.isFile()) out.push({ full, rel: name });
    }
  };
  walk(root, '');
  return out;
}

/** Stream a ZIP of `root` into `out`; resolves when finalized, rejects on a read error or `signal`. */
export async function writeDirectoryZip(root: string, out: Writable, signal?: AbortSignal): Promise<void> {
  const entries = zipEntries(root).map(({ full, rel }) => ({ file: full, name: rel, store: isStoredInZip(rel) }));
  await writeZip(entries, out, { signal });
}

/** `outputs_20261122-142233.zip` (local time). */
export function outputsZipName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `outputs_${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}.zip`;
}
