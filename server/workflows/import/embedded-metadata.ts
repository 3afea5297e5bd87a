/**
 * The text the engine embeds in saved images: PNG `tEXt`/`zTXt`/`iTXt` chunks named `prompt`
 * and `workflow` (SaveImage), and WebP's `EXIF` chunk whose ASCII tags hold `"prompt:{...}"`
 * and `"workflow:{...}"` (SaveAnimatedWEBP / SaveWEBM write them at 0x0110, 0x010f, …).
 * Pure byte reading; a truncated file yields what was read before the damage.
 */
import zlib from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** `png` / `webp` when the bytes start like one, else null. */
export function imageKind(bytes: Buffer): 'png' | 'webp' | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return null;
}

/** Keyword → text of every text chunk (or EXIF `key:value` tag) in a PNG or WebP. */
export function embeddedTexts(bytes: Buffer): Record<string, string> {
  const kind = imageKind(bytes);
  if (kind === 'png') return pngTexts(bytes);
  if (kind === 'webp') return webpTexts(bytes);
  return {};
}

function pngTexts(bytes: Buffer): Record<string, string> {
  const texts: Record<string, string> = {};
  let offset = 8;
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const start = offset + 8;
    const end = start + length;
    if (end > bytes.length) break;
    const data = bytes.subarray(start, end);
    if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') {
      const entry = readTextChunk(type, data);
      if (entry) texts[entry[0]] = entry[1];
    }
    if (type === 'IEND') break;
    offset = end + 4; // skip the CRC
  }
  return texts;
}

function readTextChunk(type: string, data: Buffer): [string, string] | null {
  const nul = data.indexOf(0);
  if (nul <= 0) return null;
  const keyword = data.toString('latin1', 0, nul);
  try {
    if (type === 'tEXt') return [keyword, data.toString('latin1', nul + 1)];
    if (type === 'zTXt') return [keyword, zlib.inflateSync(data.subarray(nul + 2)).toString('latin1')];
    // iTXt: keyword\0 flag method language\0 translated\0 text (UTF-8, maybe deflated)
    const compressed = data[nul + 1] === 1;
    const languageEnd = data.indexOf(0, nul + 3);
    const translatedEnd = languageEnd === -1 ? -1 : data.indexOf(0, languageEnd + 1);
    if (translatedEnd === -1) return null;
    const text = data.subarray(translatedEnd + 1);
    return [keyword, (compressed ? zlib.inflateSync(text) : text).toString('utf8')];
  } catch {
    return null;
  }
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
    const text = tiff.toString('utf8', at, at + size).replace(/\0+$/, '');
    const colon = text.indexOf(':');
    if (colon > 0) texts[text.slice(0, colon)] = text.slice(colon + 1);
  }
  return texts;
}
