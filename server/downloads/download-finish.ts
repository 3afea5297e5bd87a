/**
 * The end of a download: the part becomes the file only when its SHA-256 is the one expected, and
 * only once its bytes are on disk (fsync, rename, fsync of the folder), so a crash leaves either
 * the part or the whole file, never a short file under the final name.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir, fsyncFile, renameWithRetry } from '../fs-durable.js';
import { DownloadError } from './download-errors.js';
import type { DownloadRequest } from './download-options.js';
import { removePart, sidecarPath } from './download-resume.js';

/** Check `digest` against the request's hash (a mismatch deletes the part), then move the part to its final name. */
export async function placeVerifiedPart(req: Pick<DownloadRequest, 'partFile' | 'finalFile' | 'expectedSha256'>, digest: string): Promise<void> {
  const expected = req.expectedSha256?.toLowerCase();
  if (expected && digest !== expected) {
    await removePart(req.partFile);
    throw new DownloadError(
      'hash_mismatch',
      `The downloaded file does not match the catalog's SHA-256 (expected ${expected}, got ${digest}); the partial file was deleted. Retry once; if it fails again the catalog entry is out of date`,
    );
  }
  await fsyncFile(req.partFile);
  await fsp.mkdir(path.dirname(req.finalFile), { recursive: true });
  await renameWithRetry(req.partFile, req.finalFile);
  await fsp.rm(sidecarPath(req.partFile), { force: true });
  await fsyncDir(path.dirname(req.finalFile));
}
