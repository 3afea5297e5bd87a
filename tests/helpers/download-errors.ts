/**
 * For download tests: the `DownloadError` a download rejects with (anything else fails the test).
 */
import { DownloadError } from '../../server/downloads/download-errors.js';

/** Await `promise`, expecting it to reject with a `DownloadError`; returns that error. */
export async function downloadError(promise: Promise<unknown>): Promise<DownloadError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DownloadError) return err;
    throw err;
  }
  throw new Error('the download succeeded but was expected to fail');
}
