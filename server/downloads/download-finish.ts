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

/**
 * Wait for the part's SHA-256 (`digest`, from the hasher) and check it against the request's hash
 * (a mismatch deletes the part), then move the part to its final name; resolves with the digest.
 * The part is fsynced while the hasher reads its last bytes: at the end of a large file each takes
 * tens of ms (issue 29, 1 GiB: the fsync ~50 ms, the hasher 5–50 ms behind), one after the other
 * they were both on the download's clock. The rename still waits for both.
 */
export async function placeVerifiedPart(req: Pick<DownloadRequest, 'partFile' | 'finalFile' | 'expectedSha256'>, digest: Promise<string>): Promise<string> {
  // Settles with the fsync's error (or null), so a failure elsewhere leaves no rejection unobserved.
  const synced = fsyncFile(req.partFile).then(
    () => null,
    (err: unknown) => err,
  );
  let actual: string;
  try {
    actual = await digest;
  } finally {
    // Never left running behind a failure: the part may be deleted next.
    await synced;
  }
  const expected = req.expectedSha256?.toLowerCase();
  if (expected && actual !== expected) {
    await removePart(req.partFile);
    throw new DownloadError(
      'hash_mismatch',
      `The downloaded file does not match the catalog's SHA-256 (expected ${expected}, got ${actual}); the partial file was deleted. Retry once; if it fails again the catalog entry is out of date`,
    );
  }
  const syncError = await synced;
  if (syncError) throw syncError;
  await fsp.mkdir(path.dirname(req.finalFile), { recursive: true });
  await renameWithRetry(req.partFile, req.finalFile);
  await fsp.rm(sidecarPath(req.partFile), { force: true });
  await fsyncDir(path.dirname(req.finalFile));
  return actual;
}
