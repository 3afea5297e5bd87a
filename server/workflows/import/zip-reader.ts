/**
 * A small reader for the ZIPs Studio exports of a workflow folder (stored or deflated entries,
 * central directory at the end, no ZIP64). Sizes are bounded before anything is inflated, so a
 * hostile archive cannot blow up memory; names are returned as written and the caller keeps only
 * the few it expects.
 */
import zlib from 'node:zlib';
import { invalid } from './ui-graph.js';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_ENTRIES = 500;

/** True when the bytes start like a ZIP. */
export function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL;
}

/** Name → content of every file entry; throws `invalid` for a damaged archive or one over `maxBytes` unpacked. */
export function readZip(bytes: Buffer, maxBytes: number): Map<string, Buffer> {
  const end = findEnd(bytes);
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  if (count > MAX_ENTRIES) throw invalid(`the ZIP holds ${count} entries; a workflow folder has a few`);
  const files = new Map<string, Buffer>();
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) throw invalid('the ZIP is damaged (its directory is cut short)');
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const size = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const skip = nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + skip;
    if (name.endsWith('/')) continue;
    total += size;
    if (total > maxBytes) throw invalid(`the ZIP unpacks to more than ${Math.round(maxBytes / 1024 / 1024)} MB; a workflow folder is small`);
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL) throw invalid(`the ZIP is damaged (entry "${name}")`);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + compressed);
    if (data.length !== compressed) throw invalid(`the ZIP is damaged (entry "${name}" is cut short)`);
    if (method === 0) files.set(name, Buffer.from(data));
    else if (method === 8) files.set(name, inflate(data, size, name));
    else throw invalid(`the ZIP entry "${name}" uses compression method ${method}; only stored and deflated entries are read`);
  }
  return files;
}

function inflate(data: Buffer, size: number, name: string): Buffer {
  try {
    return zlib.inflateRawSync(data, { maxOutputLength: Math.max(size, 1) });
  } catch {
    throw invalid(`the ZIP entry "${name}" cannot be unpacked`);
  }
}

function findEnd(bytes: Buffer): number {
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (bytes.readUInt32LE(at) === EOCD) return at;
  }
  throw invalid('the ZIP is damaged (no end of central directory)');
}
