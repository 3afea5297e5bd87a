/**
 * Storing uploaded input files (spec: `POST /api/admin/assets/upload-inputs`). A name is kept
 * when it is free and gets `_1`, `_2`, ... otherwise; the file is created with `wx` so two
 * uploads of the same name at once can never overwrite each other.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { looksLikeImage, looksLikeVideo, readHead } from '../http/file-sniff.js';
import type { UploadedFile } from '../http/uploads.js';
import { mediaKindOf } from '../media-types.js';

const MAX_NAME_LENGTH = 180;

/** Save every upload into `dir`; failures are reported per file as `<name>: <reason>`. */
export async function saveUploads(dir: string, files: readonly UploadedFile[]): Promise<{ uploaded: string[]; errors: string[] }> {
  const uploaded: string[] = [];
  const errors: string[] = [];
  await fsp.mkdir(dir, { recursive: true });
  for (const file of files) {
    const shown = decodeMultipartName(file.originalname) || 'unnamed';
    const name = safeUploadName(shown);
    if (!name || !mediaKindOf(name)) {
      errors.push(`${shown}: unsupported file type (images and videos only)`);
      continue;
    }
    if (file.size === 0) {
      errors.push(`${shown}: the file is empty`);
      continue;
    }
    // The name promises an image or a video; the bytes must agree (a text file named .png is not one).
    const head = await readHead(file.path);
    if (!(mediaKindOf(name) === 'video' ? looksLikeVideo(head) : looksLikeImage(head))) {
      errors.push(`${shown}: the file's contents are not ${mediaKindOf(name) === 'video' ? 'a video' : 'an image'}`);
      continue;
    }
    try {
      uploaded.push(await placeUnique(dir, name, file.path));
    } catch (err) {
      errors.push(`${shown}: ${(err as Error).message}`);
    }
  }
  return { uploaded, errors };
}

/**
 * Browsers send file names as raw UTF-8 bytes, which the multipart parser reads as latin1
 * ("cafÃ©.png"); turn such a name back into what the user sees. Names that do not decode
 * cleanly are left alone.
 */
export function decodeMultipartName(name: string): string {
  if (!/[\u0080-\u00ff]/.test(name) || [...name].some((char) => char.charCodeAt(0) > 0xff)) return name;
  const utf8 = Buffer.from(name, 'latin1').toString('utf8');
  return utf8.includes('\uFFFD') ? name : utf8;
}

/** The base name of an upload made safe as one path segment, or '' when nothing usable is left. */
export function safeUploadName(original: string): string {
  // Browsers send a bare name, but some clients send a path (C:\fakepath\x.png, a/b.png).
  const base = original.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  let name = base.replace(/[\u0000-\u001f<>:"|?*]/g, '_').trim().replace(/^\.+/, '');
  if (name.length > MAX_NAME_LENGTH) {
    const ext = path.extname(name).slice(0, 10);
    name = name.slice(0, MAX_NAME_LENGTH - ext.length) + ext;
  }
  return name;
}

/**
 * Put the temporary upload in place under a free name. A hard link (same file system: the
 * temporary folder is inside STUDIO_DIR) or an exclusive copy both fail with EEXIST on a taken
 * name, so two uploads of one name at once never overwrite each other.
 */
async function placeUnique(dir: string, name: string, tmp: string): Promise<string> {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length) || 'file';
  for (let n = 0; n < 10_000; n += 1) {
    const candidate = n === 0 ? name : `${stem}_${n}${ext}`;
    const target = path.join(dir, candidate);
    try {
      await fsp.link(tmp, target).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST') throw err;
        await fsp.copyFile(tmp, target, fs.constants.COPYFILE_EXCL);
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw err;
    }
    // Input files are read by the engine, perhaps as another user: not the upload's 0600.
    await fsp.chmod(target, 0o644).catch(() => undefined);
    return candidate;
  }
  throw new Error('no free file name');
}
