/**
 * Answer a request with a file from disk: Content-Length, ETag and Last-Modified with 304s, one
 * `Range` (206, or 416 when unsatisfiable; `If-Range` honoured) so videos seek, and HEAD.
 *
 * The bytes go through a few reused buffers instead of `fs.createReadStream` / `res.sendFile`,
 * which allocate a fresh buffer for every 64 KiB read. V8 counts those as external memory and
 * runs a full mark-compact of Studio's (large) heap every ~64 MB sent: measured, 27 ms of GC per
 * 50 MB, which halved the speed of a large video. Reused buffers allocate nothing per file.
 */
import type express from 'express';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { isContained } from './contained-path.js';
import { HttpError } from './errors.js';

const BUFFER_BYTES = 256 * 1024;
/** Buffers one response holds: one being read while up to two are being written. */
const BUFFERS_PER_RESPONSE = 3;
/** Spare buffers kept for later responses (6 MiB at most). */
const POOL_MAX = 24;
const pool: Buffer[] = [];

/**
 * Files Studio serves are user-made or engine-made, on Studio's own origin: opened directly, an
 * SVG or HTML file must not run script there, and no type is sniffed into a runnable one.
 */
export const USER_FILE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox",
  'X-Content-Type-Options': 'nosniff',
} as const;

export interface FileResponseOptions {
  contentType: string;
  /** A `Content-Disposition` value (see content-disposition.ts). */
  disposition?: string;
  /** Default `no-cache`: the browser may keep the file but revalidates it (a cheap 304). */
  cacheControl?: string;
  /** The folder the file belongs to: a file whose real path (links resolved) leaves it is a 404. */
  within: string;
  /** The 404's detail when the file is missing (default `File not found`). */
  missing?: string;
}

/** Send `file`; a missing file or a folder is a 404 `HttpError` (thrown before any header). */
export async function sendFileResponse(req: express.Request, res: express.Response, file: string, options: FileResponseOptions): Promise<void> {
  const missing = () => new HttpError(404, options.missing ?? 'File not found');
  if (!isContained(options.within, file)) throw missing();
  const handle = await fsp.open(file, 'r').catch(() => {
    throw missing();
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw missing();
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    res.set(USER_FILE_HEADERS);
    res.setHeader('Content-Type', options.contentType);
    if (options.disposition) res.setHeader('Content-Disposition', options.disposition);
    res.setHeader('Cache-Control', options.cacheControl ?? 'no-cache');
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', stat.mtime.toUTCString());
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    let start = 0;
    let end = stat.size - 1;
    if (req.headers.range && rangeStillValid(req, etag, stat.mtime)) {
      const ranges = req.range(stat.size, { combine: true });
      if (ranges === -1) {
        // The error middleware answers with a JSON body, which must not go out labelled as the file.
        res.removeHeader('Content-Type');
        res.removeHeader('Content-Disposition');
        res.setHeader('Content-Range', `bytes */${stat.size}`);
        throw new HttpError(416, `Range not satisfiable: ${req.headers.range}`);
      }
      // Several ranges (multipart/byteranges) are rare and optional: the whole file answers them.
      if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
        start = ranges[0]!.start;
        end = ranges[0]!.end;
        res.status(206);
        res.setHeader('Content-Range', `bytes ${start}-${end}/${stat.size}`);
      }
    }
    const length = Math.max(0, end - start + 1);
    res.setHeader('Content-Length', String(length));
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    await streamRange(handle.fd, res, start, start + length);
  } finally {
    await handle.close();
  }
}

/** `If-Range`: the range applies only while the file is the one the client has part of. */
function rangeStillValid(req: express.Request, etag: string, mtime: Date): boolean {
  const header = req.headers['if-range'];
  const ifRange = Array.isArray(header) ? header[0] : header;
  if (!ifRange) return true;
  if (ifRange.includes('"')) return ifRange === etag;
  const since = Date.parse(ifRange);
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

/**
 * Write bytes `[from, to)` of `fd` to `res`: one read at a time, each buffer reused once its
 * write has reached the socket. Resolves when all is sent or the client went away.
 */
function streamRange(fd: number, res: express.Response, from: number, to: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let position = from;
    let reading = false;
    let writing = 0;
    let over = false;
    let outcome: Error | null = null;
    // Settles once no read is pending, so the caller may close the descriptor.
    const settle = () => {
      if (reading) return;
      if (outcome) reject(outcome);
      else resolve();
    };
    const finish = (error?: Error) => {
      if (over) return;
      over = true;
      res.off('close', onClose);
      if (error) {
        outcome = error;
        res.destroy(error);
      }
      settle();
    };
    // The client left: stop. Buffers still being written are not pooled again (the socket may
    // still hold them); the garbage collector takes them.
    const onClose = () => finish();
    const pump = () => {
      if (over) return;
      if (!reading && position < to && writing < BUFFERS_PER_RESPONSE - 1) readNext();
      else if (!reading && writing === 0 && position >= to) {
        res.end();
        finish();
      }
    };
    const readNext = () => {
      const buffer = pool.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);
      reading = true;
      fs.read(fd, buffer, 0, Math.min(BUFFER_BYTES, to - position), position, (err, bytes) => {
        reading = false;
        if (over) return settle();
        if (err) return finish(err);
        // The file shrank under us: the Content-Length promised is no longer true.
        if (bytes === 0) return finish(new Error('The file became shorter while it was sent'));
        position += bytes;
        writing += 1;
        res.write(buffer.subarray(0, bytes), (writeError) => {
          writing -= 1;
          if (over) return;
          // A write fails only when the connection broke (often before 'close' is seen): the
          // client went away, which is not an error of this response.
          if (writeError) {
            res.destroy();
            return finish();
          }
          if (pool.length < POOL_MAX) pool.push(buffer);
          pump();
        });
        pump();
      });
    };
    res.on('close', onClose);
    pump();
  });
}
