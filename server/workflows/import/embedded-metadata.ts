/**
 * The text the engine embeds in saved images: PNG `tEXt`/`zTXt`/`iTXt` chunks named `prompt`
 * and `workflow` (SaveImage), and WebP's `EXIF` chunk whose ASCII tags hold `"prompt:{...}"`
 * and `"workflow:{...}"` (SaveAnimatedWEBP / SaveWEBM write them at 0x0110, 0x010f, …).
 * Pure byte reading in one pass; a truncated file yields what was read before the damage. The
 * file is untrusted: what is inflated or decoded is counted by the bytes actually produced, and
 * past `MAX_TEXT_BYTES` in all the file is refused (413) naming the limit.
 */
import zlib from 'node:zlib';
import { DomainError } from '../../domain-error.js';
import { sniffKind } from '../../http/file-sniff.js';

/** The most text an image may carry in all its chunks or tags (a real workflow is a few MB at most). */
export const MAX_TEXT_BYTES = 32 * 1024 * 1024;

/** Keyword → text of every text chunk (or EXIF `key:value` tag) in a PNG or WebP. */
export function embeddedTexts(bytes: Buffer): Record<string, string> {
  const kind = sniffKind(bytes);
  if (kind === 'png') return pngTexts(bytes);
  if (kind === 'webp') return webpTexts(bytes);
  return {};
}

/** Bytes of text produced so far; refuses the file past the limit. */
class TextBudget {
  private used = 0;

  get left(): number {
    return MAX_TEXT_BYTES - this.used;
  }

  take(bytes: number): void {
    this.used += bytes;
    if (this.used > MAX_TEXT_BYTES) throw overLimit();
  }
}

function overLimit(): DomainError {
  return new DomainError('too_large', `the image carries more than ${MAX_TEXT_BYTES / 1024 / 1024} MB of text (the limit for an imported image's workflow)`);
}

function pngTexts(bytes: Buffer): Record<string, string> {
  const texts: Record<string, string> = {};
  const budget = new TextBudget();
  let offset = 8;
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const start = offset + 8;
    const end = start + length;
    if (end > bytes.length) break;
    const data = bytes.subarray(start, end);
    if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      const entry = readTextChunk(type, data, budget);
      if (entry) texts[entry[0]] = entry[1];
    }
    if (type === 'IEND') break;
    offset = end + 4; // skip the CRC
  }
  return texts;
}

function readTextChunk(type: string, data: Buffer, budget: TextBudget): [string, string] | null {
  const nul = data.indexOf(0);
  if (nul <= 0) return null;
  const keyword = data.toString('latin1', 0, nul);
  if (type === 'tEXt') return [keyword, counted(data.subarray(nul + 1), budget).toString('latin1')];
  if (type === 'zTXt') return textOf(keyword, () => inflateCapped(data.subarray(nul + 2), budget), 'latin1');
  // iTXt: keyword\0 flag method language\0 translated\0 text (UTF-8, maybe deflated)
  const compressed = data[nul + 1] === 1;
  const languageEnd = data.indexOf(0, nul + 3);
  const translatedEnd = languageEnd === -1 ? -1 : data.indexOf(0, languageEnd + 1);
  if (translatedEnd === -1) return null;
  const text = data.subarray(translatedEnd + 1);
  return textOf(keyword, () => (compressed ? inflateCapped(text, budget) : counted(text, budget)), 'utf8');
}

/** A damaged chunk is skipped; a chunk over the limit refuses the file. */
function textOf(keyword: string, read: () => Buffer, encoding: BufferEncoding): [string, string] | null {
  try {
    return [keyword, read().toString(encoding)];
  } catch (error) {
    if (error instanceof DomainError) throw error;
    return null;
  }
}

function counted(data: Buffer, budget: TextBudget): Buffer {
  budget.take(data.length);
  return data;
}

/** Inflate at most what the budget has left: zlib stops at the cap instead of producing gigabytes. */
function inflateCapped(data: Buffer, budget: TextBudget): Buffer {
  let out: Buffer;
  try {
    out = zlib.inflateSync(data, { maxOutputLength: Math.max(1, budget.left + 1) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw overLimit();
    throw error;
  }
  return counted(out, budget);
}

function webpTexts(bytes: Buffer): Record<string, string> {
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const type = bytes.toString('latin1', offset, offset + 4);
    const length = bytes.readUInt32LE(offset + 4);
    const start = offset + 8;
    if (start + length > bytes.length) break;
    if (type === 'EXIF') return exifTexts(bytes.subarray(start, start + length));
    offset = start + length + (length % 2); // chunks are padded to even sizes
  }
  return {};
}

/** ASCII tags of IFD0 that read `key:value`. */
function exifTexts(exif: Buffer): Record<string, string> {
  const tiff = exif.toString('latin1', 0, 6) === 'Exif\0\0' ? exif.subarray(6) : exif;
  if (tiff.length < 8) return {};
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const texts: Record<string, string> = {};
  const budget = new TextBudget();
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return {};
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) break;
    if (u16(entry + 2) !== 2) continue; // ASCII only
    const size = u32(entry + 4);
    const at = size <= 4 ? entry + 8 : u32(entry + 8);
    if (at + size > tiff.length) continue;
    // Counted before it is read: tags may all point at the same bytes.
    budget.take(size);
    // An EXIF ASCII value ends at its first NUL (a regular expression here was quadratic on NULs).
    const nul = tiff.subarray(at, at + size).indexOf(0);
    const text = tiff.toString('utf8', at, nul === -1 ? at + size : at + nul);
    const colon = text.indexOf(':');
    if (colon > 0) texts[text.slice(0, colon)] = text.slice(colon + 1);
  }
  return texts;
}
