/**
 * PNG text chunks written without touching the image data: every chunk is copied as it is except
 * an earlier chunk of a keyword being written (replaced, so stamping twice gives one) and, when asked, the engine's
 * `prompt`/`workflow` chunks passed through `rewrite`. The new `parameters` chunk goes right
 * before the first `IDAT`: `tEXt` when the text is Latin-1, else `iTXt` (UTF-8), as A1111 writes it.
 */
import zlib from 'node:zlib';
import { PNG_SIGNATURE as SIGNATURE, pngTextChunk as textChunk } from '../png-chunks.js';

interface Chunk {
  type: string;
  data: Buffer;
  raw: Buffer;
}

/** True when `bytes` start like a PNG. */
export function isPng(bytes: Buffer): boolean {
  return bytes.length > 8 && bytes.subarray(0, 8).equals(SIGNATURE);
}

function chunksOf(png: Buffer): Chunk[] {
  const chunks: Chunk[] = [];
  let offset = 8;
  while (offset + 12 <= png.length) {
    const length = png.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (end > png.length) throw new Error('the PNG is truncated');
    chunks.push({ type: png.toString('latin1', offset + 4, offset + 8), data: png.subarray(offset + 8, offset + 8 + length), raw: png.subarray(offset, end) });
    offset = end;
    if (chunks.at(-1)!.type === 'IEND') break;
  }
  return chunks;
}

/** Keyword and text of a tEXt or uncompressed/compressed iTXt/zTXt chunk. */
function textOf(chunk: Chunk): [string, string] | null {
  const nul = chunk.data.indexOf(0);
  if (nul <= 0) return null;
  const key = chunk.data.toString('latin1', 0, nul);
  if (chunk.type === 'tEXt') return [key, chunk.data.toString('latin1', nul + 1)];
  if (chunk.type === 'zTXt') return [key, zlib.inflateSync(chunk.data.subarray(nul + 2)).toString('latin1')];
  if (chunk.type !== 'iTXt') return null;
  const compressed = chunk.data[nul + 1] === 1;
  const lang = chunk.data.indexOf(0, nul + 3);
  const translated = lang === -1 ? -1 : chunk.data.indexOf(0, lang + 1);
  if (translated === -1) return null;
  const body = chunk.data.subarray(translated + 1);
  return [key, (compressed ? zlib.inflateSync(body) : body).toString('utf8')];
}

/** Every text chunk's keyword and text, in file order. */
export function pngTexts(png: Buffer): Array<[string, string]> {
  return chunksOf(png).flatMap((c) => {
    const text = ['tEXt', 'iTXt', 'zTXt'].includes(c.type) ? textOf(c) : null;
    return text ? [text] : [];
  });
}

/**
 * `png` with the text chunks of `texts` set (a null value: none written; an earlier chunk of that
 * keyword is always dropped) and the other text chunks `rewrite` returns a new text for replaced
 * (same keyword); everything else byte for byte.
 */
export function withTexts(png: Buffer, texts: Record<string, string | null>, rewrite?: (key: string, text: string) => string | null): Buffer {
  const parts: Buffer[] = [SIGNATURE];
  let placed = false;
  for (const c of chunksOf(png)) {
    const text = ['tEXt', 'iTXt', 'zTXt'].includes(c.type) ? textOf(c) : null;
    if (text && Object.hasOwn(texts, text[0])) continue;
    if (!placed && (c.type === 'IDAT' || c.type === 'IEND')) {
      for (const [key, value] of Object.entries(texts)) if (value !== null) parts.push(textChunk(key, value));
      placed = true;
    }
    const changed = text && rewrite ? rewrite(text[0], text[1]) : null;
    parts.push(changed !== null && text ? textChunk(text[0], changed) : c.raw);
  }
  return Buffer.concat(parts);
}
