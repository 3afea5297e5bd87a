/**
 * PNG chunks, the one way Studio writes them: the provenance stamp (Studio's own text) and the
 * stand-in's SaveImage (the engine's `prompt`/`workflow` text) both go through here.
 */
import zlib from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One chunk: length, type, data, and the CRC over type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/** A text chunk: `tEXt` when the text is Latin-1 (as Pillow and A1111 write it), else an uncompressed `iTXt` (UTF-8). */
export function pngTextChunk(key: string, text: string): Buffer {
  const latin1 = [...text].every((c) => c.charCodeAt(0) <= 0xff);
  const data = latin1
    ? Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')])
    : Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(text, 'utf8')]);
  return pngChunk(latin1 ? 'tEXt' : 'iTXt', data);
}
