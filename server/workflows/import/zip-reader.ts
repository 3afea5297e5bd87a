/**
 * A small reader for the ZIPs Studio exports of a workflow folder (stored or deflated entries,
 * central directory at the end, no ZIP64). The archive is untrusted: entries are listed first and
 * only the ones the caller keeps are unpacked; what is unpacked is counted by the bytes actually
 * produced (not the sizes the archive declares, which it may lie about, nor per entry: entries
 * may share their data), and past `maxBytes` in all the archive is refused (413) naming the limit.
 */
import zlib from 'node:zlib';
import { DomainError } from '../../domain-error.js';
import { invalid } from './ui-graph.js';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_ENTRIES = 500;

/** One file entry of the archive; `read()` unpacks it against the archive's budget. */
export interface ZipEntry {
  name: string;
  read(): Buffer;
}

/** True when the bytes start like a ZIP. */
export function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL;
}

/** Every file entry (directories left out); throws `invalid` for a damaged directory. */
export function listZip(bytes: Buffer, maxBytes: number): ZipEntry[] {
  const end = findEnd(bytes);
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  if (count > MAX_ENTRIES) throw invalid(`the ZIP holds ${count} entries; a workflow folder has a few`);
  const budget = { left: maxBytes };
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) throw invalid('the ZIP is damaged (its directory is cut short)');
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const skip = nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + skip;
    if (name.endsWith('/')) continue;
    entries.push({ name, read: () => readEntry(bytes, { name, method, compressed, local }, budget, maxBytes) });
  }
  return entries;
}

function readEntry(bytes: Buffer, entry: { name: string; method: number; compressed: number; local: number }, budget: { left: number }, maxBytes: number): Buffer {
  const { name, method, compressed, local } = entry;
  if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL) throw invalid(`the ZIP is damaged (entry "${name}")`);
  const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
  const data = bytes.subarray(start, start + compressed);
  if (data.length !== compressed) throw invalid(`the ZIP is damaged (entry "${name}" is cut short)`);
  let out: Buffer;
  if (method === 0) out = Buffer.from(data);
  else if (method === 8) out = inflate(data, budget.left, name, maxBytes);
  else throw invalid(`the ZIP entry "${name}" uses compression method ${method}; only stored and deflated entries are read`);
  budget.left -= out.length;
  if (budget.left < 0) throw tooLarge(maxBytes);
  return out;
}

/** zlib stops once the budget is used up, so a bomb never produces more than the limit. */
function inflate(data: Buffer, left: number, name: string, maxBytes: number): Buffer {
  try {
    return zlib.inflateRawSync(data, { maxOutputLength: Math.max(left + 1, 1) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes);
    throw invalid(`the ZIP entry "${name}" cannot be unpacked`);
  }
}

function tooLarge(maxBytes: number): DomainError {
  return new DomainError('too_large', `the ZIP unpacks to more than ${Math.round(maxBytes / 1024 / 1024)} MB (the limit for a workflow folder)`);
}

function findEnd(bytes: Buffer): number {
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (bytes.readUInt32LE(at) === EOCD) return at;
  }
  throw invalid('the ZIP is damaged (no end of central directory)');
}
