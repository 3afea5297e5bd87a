/**
 * The one way Studio draws a thumbnail: a JPEG at most `size` px on its longest side (EXIF
 * orientation applied, transparency on white), written under a temp name and renamed, so a
 * reader never sees half a file. Used by the asset browser and the model-hub gallery.
 */
import fsp from 'node:fs/promises';

/** Write the thumbnail of `input` (a file path or encoded image bytes) to `target`. */
export async function writeJpegThumb(input: string | Buffer, target: string, size: number): Promise<void> {
  const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
  // Loaded on the first thumbnail, not at start: the image library and its native libvips cost a
  // quarter of the start time and ~25 MiB of memory that a Studio nobody browses never needs.
  const { default: sharp } = await import('sharp');
  try {
    await sharp(input, { failOn: 'error', limitInputPixels: 20_000 * 20_000 })
      .rotate()
      .resize({ width: size, height: size, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 78 })
      .toFile(tmp);
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}
