/**
 * Streaming the zip archives of the Windows llama.cpp releases from disk, by the one ZIP reader's
 * rules (`server/zip-reader.ts`: zip64, encrypted and unknown-method entries refused; Unix mode
 * bits mark links and executables): each entry's bytes flow from its local header through inflate.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import zlib from 'node:zlib';
import { inflateCapped, ZIP_TAIL_BYTES, zipDataStart, zipDirectoryEntries, zipDirectoryPlace, ZipFormatError, type ZipDirEntry } from '../../zip-reader.js';
import { UnsafeArchiveError, type ArchiveEntry } from './archive-entries.js';
import type { ReadEntry } from './tar-reader.js';

/** A llama.cpp release holds tens of files; a directory of more than this is not one. */
const MAX_ENTRIES = 10_000;

interface CentralEntry {
  entry: ArchiveEntry;
  dir: ZipDirEntry;
}

async function readAt(fd: fsp.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fd.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

async function centralDirectory(fd: fsp.FileHandle, fileSize: number): Promise<CentralEntry[]> {
  const tailLength = Math.min(fileSize, ZIP_TAIL_BYTES);
  const { count, offset, size } = zipDirectoryPlace(await readAt(fd, fileSize - tailLength, tailLength), fileSize, { maxEntries: MAX_ENTRIES });
  return zipDirectoryEntries(await readAt(fd, offset, size), count).map((dir) => ({ entry: { name: dir.name, kind: dir.kind, size: dir.size, mode: dir.mode }, dir }));
}

function rawBody(file: string, start: number, length: number): AsyncIterable<Buffer> {
  return length === 0 ? (async function* () {})() : (fs.createReadStream(file, { start, end: start + length - 1 }) as AsyncIterable<Buffer>);
}

/** The entries of a `.zip` file, in central-directory order; what the reader finds wrong is refused. */
export async function* readZip(file: string): AsyncGenerator<ReadEntry> {
  const fd = await fsp.open(file, 'r');
  let entries: CentralEntry[];
  const starts: number[] = [];
  try {
    const { size } = await fd.stat();
    entries = await centralDirectory(fd, size);
    for (const { entry, dir } of entries) {
      const start = zipDataStart(await readAt(fd, dir.localOffset, 30), dir, size);
      starts.push(start);
      if (entry.kind === 'symlink') {
        // A link's target is its (small) body.
        const target = await readAt(fd, start, Math.min(dir.compressed, 4096));
        const text = dir.method === 8 ? inflateCapped(target, 4096) : target;
        if (text === null) throw new ZipFormatError(`the link "${entry.name}" names a target over 4 KB`);
        entry.linkTarget = text.toString('utf8');
      }
    }
  } catch (error) {
    if (error instanceof ZipFormatError) throw new UnsafeArchiveError(`refused: ${error.message}`);
    throw error;
  } finally {
    await fd.close();
  }
  for (const [i, { entry, dir }] of entries.entries()) {
    const start = starts[i]!;
    yield {
      entry,
      body: () => {
        const raw = rawBody(file, start, dir.compressed);
        if (dir.method === 0) return raw;
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
