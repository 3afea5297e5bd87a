/**
 * The outputs as one streamed ZIP (spec: `GET /api/admin/outputs-zip`): entries keep their path
 * under the output directory, media is stored without recompression (deflating a PNG or an MP4
 * costs time and saves nothing), and nothing is held in memory beyond the stream buffers.
 */
import type { ZipEntryData } from 'archiver';
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { isStoredInZip } from './asset-types.js';

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

/** Stream a ZIP of `root` into `out`; resolves when finalized, rejects on an archive error or `signal`. */
export async function writeDirectoryZip(root: string, out: Writable, signal?: AbortSignal): Promise<void> {
  // The archive library loads with the first ZIP, not at start (it pulls in dozens of stream modules).
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: 6 } });
  const failed = new Promise<never>((_, reject) => {
    zip.on('error', reject);
    signal?.addEventListener('abort', () => {
      zip.abort();
      reject(new Error('the client went away'));
    });
  });
  zip.pipe(out);
  for (const { full, rel } of zipEntries(root)) {
    const data: ZipEntryData = { name: rel, store: isStoredInZip(rel) };
    zip.file(full, data);
  }
  await Promise.race([zip.finalize(), failed]);
}

/** `outputs_20261122-142233.zip` (local time). */
export function outputsZipName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `outputs_${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}.zip`;
}
