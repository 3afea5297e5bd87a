/**
 * Resume bookkeeping for a `.part` file: the sidecar `<part>.meta.json` remembers which URL and
 * which version of the remote file (its validator) the bytes came from, so a resume can send
 * `If-Range` and never glue the tail of a changed file onto the head of the old one.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { headerOf } from './download-body.js';

/** What the sidecar stores. */
export interface PartMeta {
  /** The origin URL the part was fetched from (not the signed CDN URL, which expires). */
  url: string;
  /** Strong ETag of the remote file, as sent by the server (quotes included). */
  etag?: string;
  lastModified?: string;
  total?: number | null;
  sha256?: string | null;
}

/** Where the sidecar of a part file lives. */
export function sidecarPath(partFile: string): string {
  return `${partFile}.meta.json`;
}

/** The sidecar, or null when it is missing or unreadable (then the part cannot be trusted). */
export async function readSidecar(partFile: string): Promise<PartMeta | null> {
  try {
    const raw = JSON.parse(await fsp.readFile(sidecarPath(partFile), 'utf8')) as Partial<PartMeta>;
    return typeof raw.url === 'string' ? (raw as PartMeta) : null;
  } catch {
    return null;
  }
}

/**
 * Write the sidecar (temp + rename: a torn sidecar would cost the whole part). Synchronously: it
 * is written between the answer's head and the first body byte, on the download's own thread
 * (`download-thread.ts`), where the four thread-pool round trips of the promise API took 3–10 ms
 * of that gap on a loaded machine (issue 29) against well under 1 ms.
 */
export function writeSidecar(partFile: string, meta: PartMeta): void {
  const file = sidecarPath(partFile);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(meta), 'utf8');
  fs.renameSync(tmp, file);
}

/** Delete the part and its sidecar (missing files are fine). */
export async function removePart(partFile: string): Promise<void> {
  await fsp.rm(partFile, { force: true });
  await fsp.rm(sidecarPath(partFile), { force: true });
}

/** Size of a file, or -1 when it does not exist. */
export async function fileSize(file: string): Promise<number> {
  try {
    return (await fsp.stat(file)).size;
  } catch {
    return -1;
  }
}

/** The validator a response offers for a later If-Range: a strong ETag, else Last-Modified. */
export function validatorOf(headers: IncomingHttpHeaders): Pick<PartMeta, 'etag' | 'lastModified'> {
  const etag = headerOf(headers, 'etag');
  // A weak ETag is not allowed in If-Range (RFC 9110 13.1.5); it would always fail the match.
  if (etag && !etag.startsWith('W/')) return { etag };
  const lastModified = headerOf(headers, 'last-modified');
  return lastModified ? { lastModified } : {};
}

/** The If-Range value for a sidecar, or null when it holds no validator. */
export function ifRangeOf(meta: PartMeta | null): string | null {
  return meta?.etag ?? meta?.lastModified ?? null;
}

/** `bytes 100-199/1000` -> {start, end, total}; `bytes *\/1000` -> {total}; null otherwise. */
export function parseContentRange(value: string | null): { start?: number; end?: number; total: number | null } | null {
  if (!value) return null;
  const satisfied = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(value.trim());
  if (satisfied) {
    return {
      start: Number(satisfied[1]),
      end: Number(satisfied[2]),
      total: satisfied[3] === '*' ? null : Number(satisfied[3]),
    };
  }
  const unsatisfied = /^bytes\s+\*\/(\d+)$/i.exec(value.trim());
  return unsatisfied ? { total: Number(unsatisfied[1]) } : null;
}
