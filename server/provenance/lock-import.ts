/**
 * A lock brought from elsewhere: `lock.json` of a job package ZIP (read from the uploaded file:
 * its directory and that one entry, not the whole archive, which may hold videos), or the
 * `studio_lock` text chunk of an output PNG. Anything else, or a lock that does not parse, is
 * refused with words that say what was expected.
 */
import fsp from 'node:fs/promises';
import { DomainError } from '../domain-error.js';
import { inflateCapped, isZip, ZIP_TAIL_BYTES, zipDataStart, zipDirectoryEntries, zipDirectoryPlace, ZipFormatError } from '../zip-reader.js';
import { jobLockSchema, type JobLock } from '../contracts/provenance.contract.js';
import { isPng, pngTexts } from './png-text.js';

const MAX_LOCK_BYTES = 4 * 1024 * 1024;
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/** The lock in the file at `file` (a job package ZIP or an output PNG). */
export async function readLockFrom(file: string): Promise<JobLock> {
  const handle = await fsp.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(8, size));
    await handle.read(head, 0, head.length, 0);
    if (isZip(head)) return parseLock(await lockJsonOf(handle, size), 'lock.json');
    if (isPng(Buffer.concat([head, Buffer.alloc(1)]))) {
      if (size > MAX_IMAGE_BYTES) throw new DomainError('too_large', `the image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);
      const text = pngTexts(await handle.readFile()).find(([key]) => key === 'studio_lock')?.[1];
      if (!text) throw new DomainError('invalid', 'the image carries no Studio lock (an output of a Studio job, PNG, without private prompts, does)');
      return parseLock(text, 'the image');
    }
    throw new DomainError('invalid', 'file: a job package ZIP or an output PNG of a Studio job is expected');
  } finally {
    await handle.close();
  }
}

async function lockJsonOf(handle: fsp.FileHandle, size: number): Promise<string> {
  try {
    const tailLength = Math.min(size, ZIP_TAIL_BYTES);
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    const place = zipDirectoryPlace(tail, size, { maxEntries: 100_000 });
    const dir = Buffer.alloc(place.size);
    await handle.read(dir, 0, place.size, place.offset);
    const entry = zipDirectoryEntries(dir, place.count).find((e) => e.name === 'lock.json' && e.kind === 'file');
    if (!entry) throw new DomainError('invalid', 'the job package has no lock.json (it was made before locks were recorded, or by another program)');
    if (entry.compressed > MAX_LOCK_BYTES) throw new DomainError('too_large', 'lock.json is larger than 4 MB');
    const local = Buffer.alloc(30);
    await handle.read(local, 0, 30, entry.localOffset);
    const start = zipDataStart(local, entry, size);
    const data = Buffer.alloc(entry.compressed);
    await handle.read(data, 0, entry.compressed, start);
    const bytes = entry.method === 0 ? data : inflateCapped(data, MAX_LOCK_BYTES);
    if (!bytes) throw new DomainError('too_large', 'lock.json is larger than 4 MB');
    return bytes.toString('utf8');
  } catch (err) {
    if (err instanceof ZipFormatError) throw new DomainError('invalid', err.message);
    throw err;
  }
}

function parseLock(text: string, where: string): JobLock {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DomainError('invalid', `${where} is not JSON`);
  }
  const parsed = jobLockSchema.safeParse(json);
  if (!parsed.success) throw new DomainError('invalid', `${where} is not a Studio lock: ${parsed.error.issues[0]?.path.join('.') || 'root'} ${parsed.error.issues[0]?.message ?? ''}`.trim());
  return parsed.data;
}
