/**
 * A streaming reader of gzip-compressed tar archives (the Linux and macOS llama.cpp releases):
 * ustar headers, pax extended headers (long names and link targets, sizes) and GNU long names.
 * Each entry's body must be consumed (or skipped) before asking for the next. Nothing is
 * buffered beyond one block, so a big archive never sits in memory.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { UnsafeArchiveError, type ArchiveEntry, type EntryKind } from './archive-entries.js';

export interface ReadEntry {
  entry: ArchiveEntry;
  /** The entry's bytes (empty for folders and links); read it once, before the next entry. */
  body: () => AsyncIterable<Buffer>;
}

/** Pulls exact byte counts out of a chunked stream. */
class Bytes {
  private buffered: Buffer[] = [];
  private length = 0;
  private readonly it: AsyncIterator<Buffer>;
  private done = false;

  constructor(source: AsyncIterable<Buffer>) {
    this.it = source[Symbol.asyncIterator]();
  }

  private async fill(n: number): Promise<boolean> {
    while (this.length < n && !this.done) {
      const next = await this.it.next();
      if (next.done) this.done = true;
      else {
        this.buffered.push(next.value);
        this.length += next.value.length;
      }
    }
    return this.length >= n;
  }

  /** Exactly `n` bytes, or null at the end of the stream. */
  async read(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) return null;
    const all = Buffer.concat(this.buffered);
    this.buffered = all.length > n ? [all.subarray(n)] : [];
    this.length = all.length - n;
    return all.subarray(0, n);
  }

  /** `n` bytes as they come, without joining them. */
  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.length === 0 && !(await this.fill(1))) throw new UnsafeArchiveError('refused: the archive ends in the middle of an entry');
      const head = this.buffered.shift()!;
      const part = head.length > left ? head.subarray(0, left) : head;
      if (head.length > left) this.buffered.unshift(head.subarray(left));
      this.length -= part.length;
      left -= part.length;
      yield part;
    }
  }
}

const text = (block: Buffer, start: number, length: number) => {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
};

function octal(block: Buffer, start: number, length: number): number {
  // Base-256 (GNU) for big values: the top bit of the first byte set.
  if (block[start]! & 0x80) {
    let value = 0;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + block[i]!;
    return value;
  }
  const s = text(block, start, length).trim();
  return s ? parseInt(s, 8) : 0;
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  return sum === octal(block, 148, 8);
}

function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const len = parseInt(data.subarray(at, space).toString(), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const record = data.subarray(space + 1, at + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    at += len;
  }
  return out;
}

const KINDS: Record<string, EntryKind> = { '0': 'file', '\0': 'file', '7': 'file', '5': 'dir', '2': 'symlink' };

/** The entries of a `.tar.gz` file, in order. */
export async function* readTarGz(file: string): AsyncGenerator<ReadEntry> {
  const bytes = new Bytes(fs.createReadStream(file).pipe(zlib.createGunzip()) as AsyncIterable<Buffer>);
  let pax: Record<string, string> = {};
  let longName: string | null = null;
  let longLink: string | null = null;
  for (;;) {
    const block = await bytes.read(512);
    if (!block || block.every((b) => b === 0)) return;
    if (!checksumOk(block)) throw new UnsafeArchiveError('refused: a tar header is damaged (bad checksum)');
    const type = String.fromCharCode(block[156]!);
    const size = pax.size !== undefined ? Number(pax.size) : octal(block, 124, 12);
    // A size is a count of bytes: a negative or broken one would slip past the unpack cap.
    if (!Number.isSafeInteger(size) || size < 0) throw new UnsafeArchiveError('refused: a tar header gives a size that is not a count of bytes');
    const padded = Math.ceil(size / 512) * 512;
    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      if (size > 1 << 20) throw new UnsafeArchiveError('refused: an extended tar header is over 1 MB');
      const data = (await bytes.read(padded))?.subarray(0, size);
      if (!data) throw new UnsafeArchiveError('refused: the archive ends in an extended header');
      if (type === 'x') pax = parsePax(data);
      else if (type === 'L') longName = text(data, 0, data.length);
      else if (type === 'K') longLink = text(data, 0, data.length);
      continue;
    }
    const prefix = text(block, 345, 155);
    const name = pax.path ?? longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    const linkTarget = pax.linkpath ?? longLink ?? text(block, 157, 100);
    pax = {};
    longName = longLink = null;
    const entry: ArchiveEntry = { name, kind: KINDS[type] ?? 'other', size, mode: octal(block, 100, 8), ...(type === '1' || type === '2' ? { linkTarget } : {}) };
    if (type === '1') entry.kind = 'other'; // a hard link: refused like any link that is not a sibling alias
    let consumed = false;
    yield {
      entry,
      body: () => {
        consumed = true;
        return (async function* () {
          yield* bytes.stream(size);
          if (padded > size) await bytes.read(padded - size);
        })();
      },
    };
    if (!consumed && padded > 0) for await (const chunk of bytes.stream(padded)) void chunk;
  }
}
