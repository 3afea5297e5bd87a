/**
 * A reader of zip archives (the Windows llama.cpp releases): the central directory at the end,
 * then each entry's bytes streamed from its local header through inflate. Stored and deflated
 * entries only; zip64 (archives or entries over 4 GB) is refused, no llama.cpp build comes near.
 * Unix mode bits, when the archive carries them, mark symbolic links and executables.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import { UnsafeArchiveError, type ArchiveEntry } from './archive-entries.js';
import type { ReadEntry } from './tar-reader.js';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

interface CentralEntry {
  entry: ArchiveEntry;
  method: number;
  compressed: number;
  localOffset: number;
}

async function readAt(fd: fsp.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fd.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

async function centralDirectory(fd: fsp.FileHandle, fileSize: number): Promise<CentralEntry[]> {
  const tailLength = Math.min(fileSize, 65_557);
  const tail = await readAt(fd, fileSize - tailLength, tailLength);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === EOCD) { at = i; break; }
  if (at === -1) throw new UnsafeArchiveError('refused: not a zip archive (no end of central directory)');
  const count = tail.readUInt16LE(at + 10);
  const size = tail.readUInt32LE(at + 12);
  const offset = tail.readUInt32LE(at + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) throw new UnsafeArchiveError('refused: zip64 archives are not supported');
  if (offset + size > fileSize) throw new UnsafeArchiveError('refused: the zip central directory points past the end of the file');
  const dir = await readAt(fd, offset, size);
  const out: CentralEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) throw new UnsafeArchiveError('refused: the zip central directory is damaged');
    const madeBy = dir.readUInt16LE(p + 4) >> 8;
    const flags = dir.readUInt16LE(p + 8);
    const method = dir.readUInt16LE(p + 10);
    const compressed = dir.readUInt32LE(p + 20);
    const uncompressed = dir.readUInt32LE(p + 24);
    const nameLength = dir.readUInt16LE(p + 28);
    const extraLength = dir.readUInt16LE(p + 30);
    const commentLength = dir.readUInt16LE(p + 32);
    const external = dir.readUInt32LE(p + 38);
    const localOffset = dir.readUInt32LE(p + 42);
    const name = dir.subarray(p + 46, p + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    if (compressed === 0xffffffff || uncompressed === 0xffffffff) throw new UnsafeArchiveError('refused: zip64 entries are not supported');
    if (flags & 0x1) throw new UnsafeArchiveError(`refused: "${name}" is encrypted`);
    const unixMode = madeBy === 3 ? external >>> 16 : 0;
    const fileType = unixMode & 0o170000;
    const kind = name.endsWith('/') || fileType === 0o040000 ? 'dir' : fileType === 0o120000 ? 'symlink' : fileType === 0 || fileType === 0o100000 ? 'file' : 'other';
    out.push({ entry: { name, kind, size: uncompressed, mode: unixMode & 0o7777 }, method, compressed, localOffset });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

function rawBody(file: string, start: number, length: number): AsyncIterable<Buffer> {
  return length === 0 ? (async function* () {})() : (fs.createReadStream(file, { start, end: start + length - 1 }) as AsyncIterable<Buffer>);
}

/** The entries of a `.zip` file, in central-directory order. */
export async function* readZip(file: string): AsyncGenerator<ReadEntry> {
  const fd = await fsp.open(file, 'r');
  let entries: CentralEntry[];
  const starts: number[] = [];
  try {
    const { size } = await fd.stat();
    entries = await centralDirectory(fd, size);
    for (const e of entries) {
      const local = await readAt(fd, e.localOffset, 30);
      if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) throw new UnsafeArchiveError(`refused: the local header of "${e.entry.name}" is damaged`);
      const start = e.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      if (start + e.compressed > size) throw new UnsafeArchiveError(`refused: "${e.entry.name}" runs past the end of the file`);
      starts.push(start);
      if (e.entry.kind === 'symlink') {
        // A link's target is its (small) body.
        const target = await readAt(fd, start, Math.min(e.compressed, 4096));
        e.entry.linkTarget = e.method === 8 ? zlib.inflateRawSync(target).toString('utf8') : target.toString('utf8');
      }
    }
  } finally {
    await fd.close();
  }
  for (const [i, e] of entries.entries()) {
    if (e.method !== 0 && e.method !== 8) throw new UnsafeArchiveError(`refused: "${e.entry.name}" uses compression method ${e.method}`);
    const start = starts[i]!;
    yield {
      entry: e.entry,
      body: () => {
        const raw = rawBody(file, start, e.compressed);
        if (e.method === 0) return raw;
        const inflate = zlib.createInflateRaw();
        (async () => {
          for await (const chunk of raw) if (!inflate.write(chunk)) await new Promise((r) => inflate.once('drain', r));
          inflate.end();
        })().catch((err: unknown) => inflate.destroy(err as Error));
        return inflate as AsyncIterable<Buffer>;
      },
    };
  }
}
