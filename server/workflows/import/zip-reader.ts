/**
 * Reading the ZIPs Studio exports of a workflow folder, by the one ZIP reader's rules
 * (`server/zip-reader.ts`). The archive is untrusted: entries are listed first and only the ones
 * the caller keeps are unpacked; what is unpacked is counted by the bytes actually produced (not
 * the sizes the archive declares, which it may lie about, nor per entry: entries may share their
 * data), and past `maxBytes` in all the archive is refused (413) naming the limit.
 */
import { DomainError } from '../../domain-error.js';
import { inflateCapped, ZIP_TAIL_BYTES, zipDataStart, zipDirectoryEntries, zipDirectoryPlace, ZipFormatError } from '../../zip-reader.js';
import { invalid } from './ui-graph.js';

/** A workflow folder holds a few files: more entries than this is not one. */
const MAX_ENTRIES = 500;

/** One file entry of the archive; `read()` unpacks it against the archive's budget. */
export interface ZipEntry {
  name: string;
  read(): Buffer;
}

export { isZip } from '../../zip-reader.js';

/** Every file entry (directories left out); throws `invalid` for a damaged directory. */
export function listZip(bytes: Buffer, maxBytes: number): ZipEntry[] {
  const budget = { left: maxBytes };
  return worded(() => {
    const { count, offset, size } = zipDirectoryPlace(bytes.subarray(Math.max(0, bytes.length - ZIP_TAIL_BYTES)), bytes.length, { maxEntries: MAX_ENTRIES });
    return zipDirectoryEntries(bytes.subarray(offset, offset + size), count)
      .filter((entry) => entry.kind !== 'dir')
      .map((entry) => ({
        name: entry.name,
        read: () => worded(() => {
          const start = zipDataStart(bytes.subarray(entry.localOffset, entry.localOffset + 30), entry, bytes.length);
          const data = bytes.subarray(start, start + entry.compressed);
          const out = entry.method === 0 ? Buffer.from(data) : inflateCapped(data, budget.left);
          if (out === null) throw tooLarge(maxBytes);
          budget.left -= out.length;
          if (budget.left < 0) throw tooLarge(maxBytes);
          return out;
        }),
      }));
  });
}

/** The reader's reasons as this module's 400. */
function worded<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ZipFormatError) throw invalid(error.message);
    throw error;
  }
}

function tooLarge(maxBytes: number): DomainError {
  return new DomainError('too_large', `the ZIP unpacks to more than ${Math.round(maxBytes / 1024 / 1024)} MB (the limit for a workflow folder)`);
}
