/** The text chunks (`tEXt`, `iTXt` uncompressed) of a PNG, by keyword: what the engine embeds. */
export function pngTextChunks(png: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 8;
  while (at + 8 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'tEXt') {
      const nul = data.indexOf(0);
      out[data.toString('latin1', 0, nul)] = data.toString('latin1', nul + 1);
    } else if (type === 'iTXt') {
      const nul = data.indexOf(0);
      const keyword = data.toString('latin1', 0, nul);
      // keyword\0 compression-flag compression-method language\0 translated\0 text
      let p = nul + 3;
      p = data.indexOf(0, p) + 1;
      p = data.indexOf(0, p) + 1;
      if (data[nul + 1] === 0) out[keyword] = data.toString('utf8', p);
    }
    at += 12 + length;
  }
  return out;
}
