/**
 * EXIF `UserComment` (A1111's place for `parameters` in JPEG and WebP) written without touching
 * the compressed image: JPEG gets an `APP1 Exif` segment (an earlier one is rewritten), WebP an
 * `EXIF` chunk (with the `VP8X` header that announces it). The tags already there are kept, so
 * the engine's own `prompt:`/`workflow:` ASCII tags of an animated WebP survive; the comment is
 * `UNICODE\0` + UTF-16BE, as A1111's piexif writes it. The TIFF keeps its byte order.
 */
const USER_COMMENT = 0x9286;
const EXIF_IFD = 0x8769;
/** Pointers to sub-IFDs Studio does not carry over (GPS, interoperability): their offsets would dangle. */
const DROPPED = new Set([0x8825, 0xa005]);
const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8 };

interface Entry {
  tag: number;
  type: number;
  count: number;
  value: Buffer;
}

interface Tiff {
  little: boolean;
  ifd0: Entry[];
  exif: Entry[];
}

function readTiff(tiff: Buffer): Tiff {
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const readIfd = (at: number): Entry[] => {
    if (at < 8 || at + 2 > tiff.length) return [];
    const out: Entry[] = [];
    for (let i = 0; i < u16(at); i++) {
      const e = at + 2 + i * 12;
      if (e + 12 > tiff.length) break;
      const type = u16(e + 2);
      const count = u32(e + 4);
      const size = (TYPE_SIZE[type] ?? 1) * count;
      const from = size <= 4 ? e + 8 : u32(e + 8);
      if (from + size > tiff.length) continue;
      out.push({ tag: u16(e), type, count, value: Buffer.from(tiff.subarray(from, from + size)) });
    }
    return out;
  };
  if (tiff.length < 8) return { little: false, ifd0: [], exif: [] };
  const ifd0 = readIfd(u32(4));
  const pointer = ifd0.find((e) => e.tag === EXIF_IFD);
  const exif = pointer && pointer.value.length >= 4 ? readIfd(little ? pointer.value.readUInt32LE(0) : pointer.value.readUInt32BE(0)) : [];
  return { little, ifd0: ifd0.filter((e) => e.tag !== EXIF_IFD && !DROPPED.has(e.tag)), exif };
}

function writeTiff({ little, ifd0, exif }: Tiff): Buffer {
  const ifdSize = (entries: Entry[]) => 2 + entries.length * 12 + 4;
  const dataSize = (entries: Entry[]) => entries.reduce((n, e) => n + (e.value.length > 4 ? e.value.length + (e.value.length % 2) : 0), 0);
  const zeroPointer: Entry = { tag: EXIF_IFD, type: 4, count: 1, value: Buffer.alloc(4) };
  const first = [...ifd0, zeroPointer].sort((a, b) => a.tag - b.tag);
  const exifAt = 8 + ifdSize(first) + dataSize(first);
  const out = Buffer.alloc(exifAt + ifdSize(exif) + dataSize(exif));
  const w16 = (v: number, at: number) => (little ? out.writeUInt16LE(v, at) : out.writeUInt16BE(v, at));
  const w32 = (v: number, at: number) => (little ? out.writeUInt32LE(v, at) : out.writeUInt32BE(v, at));
  out.write(little ? 'II' : 'MM', 0, 'latin1');
  w16(42, 2);
  w32(8, 4);
  const writeIfd = (entries: Entry[], at: number) => {
    w16(entries.length, at);
    let data = at + ifdSize(entries);
    entries.forEach((e, i) => {
      const slot = at + 2 + i * 12;
      w16(e.tag, slot);
      w16(e.type, slot + 2);
      w32(e.count, slot + 4);
      if (e.tag === EXIF_IFD && e === zeroPointer) w32(exifAt, slot + 8);
      else if (e.value.length <= 4) e.value.copy(out, slot + 8);
      else {
        w32(data, slot + 8);
        e.value.copy(out, data);
        data += e.value.length + (e.value.length % 2);
      }
    });
    w32(0, at + 2 + entries.length * 12);
  };
  writeIfd(first, 8);
  writeIfd(exif, exifAt);
  return out;
}

/** A TIFF (EXIF body) with `comment` as UserComment, the other tags of `existing` kept. */
function exifWithComment(existing: Buffer | null, comment: string): Buffer {
  const tiff = existing ? readTiff(existing) : { little: false, ifd0: [], exif: [] };
  const utf16 = Buffer.from(comment, 'utf16le').swap16();
  const value = Buffer.concat([Buffer.from('UNICODE\0', 'latin1'), utf16]);
  const exif = [...tiff.exif.filter((e) => e.tag !== USER_COMMENT), { tag: USER_COMMENT, type: 7, count: value.length, value }].sort((a, b) => a.tag - b.tag);
  return writeTiff({ ...tiff, exif });
}

/** The UserComment text of an EXIF body (null when it has none). */
export function userCommentOf(tiff: Buffer): string | null {
  const body = tiff.toString('latin1', 0, 6) === 'Exif\0\0' ? tiff.subarray(6) : tiff;
  const entry = readTiff(body).exif.find((e) => e.tag === USER_COMMENT);
  if (!entry) return null;
  const prefix = entry.value.toString('latin1', 0, 8);
  const text = entry.value.subarray(8);
  if (prefix === 'UNICODE\0') return Buffer.from(text).swap16().toString('utf16le');
  return text.toString('utf8');
}

/** `jpeg` with an APP1 Exif segment carrying `comment` (an existing one rewritten, its tags kept). */
export function jpegWithComment(jpeg: Buffer, comment: string): Buffer {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG');
  let offset = 2;
  let insertAt = 2;
  let existing: { start: number; end: number; tiff: Buffer } | null = null;
  // Walk the marker segments before the image data (SOS), which is left as it is.
  while (offset + 4 <= jpeg.length && jpeg[offset] === 0xff) {
    const marker = jpeg[offset + 1]!;
    if (marker === 0xda || marker === 0xd9) break;
    const end = offset + 2 + jpeg.readUInt16BE(offset + 2);
    if (marker === 0xe1 && jpeg.toString('latin1', offset + 4, offset + 10) === 'Exif\0\0') existing = { start: offset, end, tiff: jpeg.subarray(offset + 10, end) };
    if (marker === 0xe0) insertAt = end;
    offset = end;
  }
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), exifWithComment(existing?.tiff ?? null, comment)]);
  if (body.length + 2 > 0xffff) throw new Error('the parameters are too long for a JPEG EXIF segment (64 KB)');
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  const segment = Buffer.concat([head, body]);
  if (existing) return Buffer.concat([jpeg.subarray(0, existing.start), segment, jpeg.subarray(existing.end)]);
  return Buffer.concat([jpeg.subarray(0, insertAt), segment, jpeg.subarray(insertAt)]);
}

interface RiffChunk {
  type: string;
  data: Buffer;
}

/** `webp` with an EXIF chunk carrying `comment` (an existing one's tags kept) and the VP8X flag that announces it. */
export function webpWithComment(webp: Buffer, comment: string): Buffer {
  if (webp.toString('latin1', 0, 4) !== 'RIFF' || webp.toString('latin1', 8, 12) !== 'WEBP') throw new Error('not a WebP');
  const chunks: RiffChunk[] = [];
  for (let offset = 12; offset + 8 <= webp.length; ) {
    const length = webp.readUInt32LE(offset + 4);
    chunks.push({ type: webp.toString('latin1', offset, offset + 4), data: webp.subarray(offset + 8, offset + 8 + length) });
    offset += 8 + length + (length % 2);
  }
  const old = chunks.find((c) => c.type === 'EXIF');
  const exif: RiffChunk = { type: 'EXIF', data: exifWithComment(old ? (old.data.toString('latin1', 0, 6) === 'Exif\0\0' ? old.data.subarray(6) : old.data) : null, comment) };
  let out = chunks.filter((c) => c.type !== 'EXIF');
  if (out[0]?.type !== 'VP8X') out = [vp8xFor(out), ...out];
  const vp8x = Buffer.from(out[0]!.data);
  vp8x[0] = (vp8x[0] ?? 0) | 0x08;
  out[0] = { type: 'VP8X', data: vp8x };
  const xmp = out.findIndex((c) => c.type === 'XMP ');
  out.splice(xmp === -1 ? out.length : xmp, 0, exif);
  const parts = out.flatMap((c) => {
    const head = Buffer.alloc(8);
    head.write(c.type, 0, 'latin1');
    head.writeUInt32LE(c.data.length, 4);
    return c.data.length % 2 ? [head, c.data, Buffer.alloc(1)] : [head, c.data];
  });
  const body = Buffer.concat(parts);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length + 4, 4);
  riff.write('WEBP', 8, 'latin1');
  return Buffer.concat([riff, body]);
}

/** The extended header a simple (VP8 / VP8L) WebP needs before it may carry EXIF: canvas size and alpha. */
function vp8xFor(chunks: RiffChunk[]): RiffChunk {
  const image = chunks[0];
  let width: number;
  let height: number;
  let alpha = false;
  if (image?.type === 'VP8 ' && image.data.length >= 10) {
    width = image.data.readUInt16LE(6) & 0x3fff;
    height = image.data.readUInt16LE(8) & 0x3fff;
  } else if (image?.type === 'VP8L' && image.data.length >= 5) {
    const bits = image.data.readUInt32LE(1);
    width = (bits & 0x3fff) + 1;
    height = ((bits >>> 14) & 0x3fff) + 1;
    alpha = ((bits >>> 28) & 1) === 1;
  } else {
    throw new Error('the WebP has no image chunk Studio can read the size of');
  }
  const data = Buffer.alloc(10);
  data[0] = alpha ? 0x10 : 0;
  data.writeUIntLE(width - 1, 4, 3);
  data.writeUIntLE(height - 1, 7, 3);
  return { type: 'VP8X', data };
}
