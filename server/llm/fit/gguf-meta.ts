/**
 * The few GGUF header values the fit estimate uses (`<arch>.block_count`, `embedding_length`,
 * `attention.head_count`, `attention.head_count_kv`), read from the start of a model file without
 * loading it. Long arrays (the vocabulary) are skipped, not read; a file whose header does not fit
 * in the first 32 MB, or is not GGUF, gives null (the estimate then guesses from the size).
 */
import fsp from 'node:fs/promises';

const HEAD_BYTES = 32 * 1024 * 1024;
const SIZES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

export interface GgufShape {
  layers: number | null;
  kvWidth: number | null;
}

class OutOfData extends Error {}

/** The shape of the GGUF model at `file`, or null. */
export async function readGgufShape(file: string): Promise<GgufShape | null> {
  try {
    const fd = await fsp.open(file, 'r');
    try {
      const b = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await fd.read(b, 0, HEAD_BYTES, 0);
      return parseShape(b.subarray(0, bytesRead));
    } finally {
      await fd.close();
    }
  } catch {
    return null;
  }
}

/** Parse the header's key/values out of `buf` (exported for the tests). */
export function parseShape(buf: Buffer): GgufShape | null {
  if (buf.length < 24 || buf.readUInt32LE(0) !== 0x46554747) return null;
  let at = 8;
  const need = (n: number) => {
    if (at + n > buf.length) throw new OutOfData();
  };
  const u64 = () => (need(8), Number(buf.readBigUInt64LE((at += 8) - 8)));
  const str = () => {
    const len = u64();
    need(len);
    return buf.toString('utf8', at, (at += len));
  };
  const scalar = (type: number): number | string | null => {
    if (type === 8) return str();
    const size = SIZES[type];
    if (size === undefined) throw new OutOfData();
    need(size);
    const start = at;
    at += size;
    if (type === 4) return buf.readUInt32LE(start);
    if (type === 5) return buf.readInt32LE(start);
    if (type === 10) return Number(buf.readBigUInt64LE(start));
    if (type === 2) return buf.readUInt16LE(start);
    return null;
  };
  u64(); // tensor count
  const kvCount = u64();
  const values = new Map<string, unknown>();
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    need(4);
    const type = buf.readUInt32LE(at);
    at += 4;
    if (type === 9) {
      need(4);
      const elem = buf.readUInt32LE(at);
      at += 4;
      const count = u64();
      const items: unknown[] = [];
      for (let j = 0; j < count; j++) {
        const v = scalar(elem);
        if (j < 256) items.push(v);
      }
      values.set(key, items);
    } else values.set(key, scalar(type));
  }
  const arch = values.get('general.architecture');
  if (typeof arch !== 'string') return null;
  const num = (v: unknown) => (typeof v === 'number' ? v : Array.isArray(v) && typeof v[0] === 'number' ? Math.max(...(v as number[])) : null);
  const layers = num(values.get(`${arch}.block_count`));
  const embd = num(values.get(`${arch}.embedding_length`));
  const heads = num(values.get(`${arch}.attention.head_count`));
  const kvHeads = num(values.get(`${arch}.attention.head_count_kv`)) ?? heads;
  return { layers, kvWidth: embd && heads && kvHeads ? Math.round((embd / heads) * kvHeads) : null };
}
