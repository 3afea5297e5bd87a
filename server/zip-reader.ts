/**
 * The one ZIP reader's rules (workflow-folder imports read a ZIP in memory, runtime installs
 * stream one from disk): the end record, the central directory, each entry's data start, and a
 * capped inflate. Stored and deflated entries only; zip64 and encrypted entries are refused, and
 * Unix mode bits (when the archive carries them) mark links and executables. What is wrong is
 * thrown as a `ZipFormatError` with a plain reason; each caller words it as its own error.
 */
import zlib from 'node:zlib';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** The end record (22 bytes) plus the longest comment: where the end record must be found. */
export const ZIP_TAIL_BYTES = 65_557;

export class ZipFormatError extends Error {}

/** One entry of the central directory. */
export interface ZipDirEntry {
  name: string;
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** The size the archive declares (it may lie: count what inflate produces). */
  size: number;
  mode: number;
  method: number;
  compressed: number;
  localOffset: number;
}

/** True when the bytes start like a ZIP. */
export function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL;
}

/** Where the central directory lies, read from the last `ZIP_TAIL_BYTES` (or fewer) of a file of `fileSize` bytes. */
export function zipDirectoryPlace(tail: Buffer, fileSize: number, opts: { maxEntries: number }): { count: number; offset: number; size: number } {
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === EOCD) { at = i; break; }
  if (at === -1) throw new ZipFormatError('the ZIP is damaged (no end of central directory)');
  const count = tail.readUInt16LE(at + 10);
  const size = tail.readUInt32LE(at + 12);
  const offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw new ZipFormatError('zip64 archives are not supported');
  if (count > opts.maxEntries) throw new ZipFormatError(`the ZIP holds ${count} entries (at most ${opts.maxEntries} are read)`);
  if (offset + size > fileSize) throw new ZipFormatError('the ZIP is damaged (its directory points past the end of the file)');
  return { count, offset, size };
}

/** The `count` entries of a central directory's bytes, in order. */
export function zipDirectoryEntries(dir: Buffer, count: number): ZipDirEntry[] {
  const out: ZipDirEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) throw new ZipFormatError('the ZIP is damaged (its directory is cut short)');
    const madeBy = dir.readUInt16LE(p + 4) >> 8;
    const flags = dir.readUInt16LE(p + 8);
    const method = dir.readUInt16LE(p + 10);
    const compressed = dir.readUInt32LE(p + 20);
    const size = dir.readUInt32LE(p + 24);
    const nameLength = dir.readUInt16LE(p + 28);
    const external = dir.readUInt32LE(p + 38);
    const localOffset = dir.readUInt32LE(p + 42);
    const name = dir.subarray(p + 46, p + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    if (compressed === 0xffffffff || size === 0xffffffff) throw new ZipFormatError('zip64 entries are not supported');
    if (flags & 0x1) throw new ZipFormatError(`"${name}" is encrypted`);
    const unixMode = madeBy === 3 ? external >>> 16 : 0;
    const fileType = unixMode & 0o170000;
    const kind = name.endsWith('/') || fileType === 0o040000 ? 'dir' : fileType === 0o120000 ? 'symlink' : fileType === 0 || fileType === 0o100000 ? 'file' : 'other';
    out.push({ name, kind, size, mode: unixMode & 0o7777, method, compressed, localOffset });
    p += 46 + nameLength + dir.readUInt16LE(p + 30) + dir.readUInt16LE(p + 32);
  }
  return out;
}

/** Where an entry's data starts, from its local header's first 30 bytes; checked against `fileSize`. */
export function zipDataStart(local: Buffer, entry: ZipDirEntry, fileSize: number): number {
  if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) throw new ZipFormatError(`the ZIP is damaged (entry "${entry.name}")`);
  if (entry.method !== 0 && entry.method !== 8) throw new ZipFormatError(`the ZIP entry "${entry.name}" uses compression method ${entry.method}; only stored and deflated entries are read`);
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (start + entry.compressed > fileSize) throw new ZipFormatError(`the ZIP is damaged (entry "${entry.name}" is cut short)`);
  return start;
}

/** Inflate in memory, stopping past `maxOutput` bytes (a bomb never produces more): null when it would. */
export function inflateCapped(data: Buffer, maxOutput: number): Buffer | null {
  try {
    return zlib.inflateRawSync(data, { maxOutputLength: Math.max(maxOutput + 1, 1) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return null;
    throw new ZipFormatError('the ZIP entry cannot be unpacked');
  }
}
