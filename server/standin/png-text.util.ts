/**
 * The text the engine's SaveImage (and PreviewImage, its subclass) puts in every PNG it writes:
 * a `tEXt` chunk `prompt` holding `json.dumps(prompt)`, then one chunk per key of
 * `extra_pnginfo` (`workflow`), each `json.dumps` of its value, right after `IHDR` as Pillow
 * writes a `PngInfo`. `json.dumps` defaults (`", "`, `": "`, ASCII only) are copied so a file's
 * chunks read the same as the engine's.
 */
import { pngTextChunk } from '../png-chunks.js';

/** Python's `json.dumps(value)` with its default separators and `ensure_ascii`. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyJsonDumps(k)}: ${pyJsonDumps(v)}`)
      .join(', ')}}`;
  }
  return pyJsonDumps(String(value));
}

/** The chunks SaveImage writes for this prompt: `prompt`, then each `extra_pnginfo` key. */
export function saveImageTexts(prompt: unknown, extraPnginfo: unknown): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  if (prompt !== undefined && prompt !== null) texts.push(['prompt', pyJsonDumps(prompt)]);
  if (extraPnginfo && typeof extraPnginfo === 'object') {
    for (const [key, value] of Object.entries(extraPnginfo as Record<string, unknown>)) texts.push([key, pyJsonDumps(value)]);
  }
  return texts;
}

/** `png` with `tEXt` chunks for `texts` inserted after its `IHDR` (text is ASCII: json.dumps escapes the rest). */
export function withTextChunks(png: Buffer, texts: ReadonlyArray<[string, string]>): Buffer {
  if (texts.length === 0 || png.length < 33 || png.toString('latin1', 12, 16) !== 'IHDR') return png;
  const ihdrEnd = 8 + 8 + png.readUInt32BE(8) + 4;
  const chunks = texts.map(([key, text]) => pngTextChunk(key, text));
  return Buffer.concat([png.subarray(0, ihdrEnd), ...chunks, png.subarray(ihdrEnd)]);
}
