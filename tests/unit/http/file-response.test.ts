/**
 * `sendFileResponse` over a real Express app: whole files through the shared buffer pool, ranges,
 * conditional requests, HEAD, 404s, parallel downloads and clients that leave mid-download.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDisposition } from '../../../server/http/content-disposition.js';
import { errorMiddleware } from '../../../server/http/error-middleware.js';
import { sendFileResponse, USER_FILE_HEADERS } from '../../../server/http/file-response.js';
import { silentLogger } from '../../../server/logging.js';
import { until } from '../../helpers/studio-ws.js';

const BUFFER = 256 * 1024;
let dir: string;
let server: http.Server;
let base: string;
/** One entry per settled `sendFileResponse`: was every byte written, or what did it reject with? */
const settled: Array<{ name: string; finished: boolean; error?: unknown }> = [];
const files: Record<string, Buffer> = {};
/** Node's warnings about file handles it had to close on garbage collection: each one is a leak. */
const gcClosed: string[] = [];
const onWarning = (warning: Error) => {
  if (/garbage collection/i.test(warning.message)) gcClosed.push(warning.message);
};

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request on its own connection (closed afterwards), the whole body collected. */
function request(pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + pathname, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const fdCount = () => fs.readdirSync('/proc/self/fd').length;

/** Descriptors of this process open on `file`. */
function fdsOn(file: string): number {
  let count = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === file) count += 1;
    } catch {
      // Closed meanwhile (the readdir's own descriptor, for one).
    }
  }
  return count;
}

const openConnections = () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

function put(name: string, data: Buffer): void {
  fs.writeFileSync(path.join(dir, name), data);
  files[name] = data;
}

beforeAll(async () => {
  process.on('warning', onWarning);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  // Not a multiple of the buffer size, so the last read is a short one.
  put('big.bin', randomBytes(3 * 1024 * 1024 + 12_345));
  put('small.txt', Buffer.from('hello, small file\n'));
  put('empty.bin', Buffer.alloc(0));
  // Big enough that the kernel's socket buffers cannot take it all before the client leaves.
  const block = randomBytes(1024 * 1024);
  put('huge.bin', Buffer.concat(Array.from({ length: 48 }, () => block)));
  fs.mkdirSync(path.join(dir, 'folder'));

  const app = express();
  app.get('/files/:name', async (req, res) => {
    const name = String(req.params.name);
    const contentType = name.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream';
    await sendFileResponse(req, res, path.join(dir, name), { contentType, disposition: contentDisposition('inline', name), within: dir }).catch((error: unknown) => {
      settled.push({ name, finished: res.writableFinished, error });
      throw error;
    });
    settled.push({ name, finished: res.writableFinished });
  });
  app.use(errorMiddleware(silentLogger));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  process.off('warning', onWarning);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('whole files', () => {
  it('sends a multi-buffer file byte for byte with every header', async () => {
    const res = await request('/files/big.bin');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(files['big.bin']!.length);
    expect(res.body.equals(files['big.bin']!)).toBe(true);
    const stat = fs.statSync(path.join(dir, 'big.bin'));
    expect(res.headers['content-length']).toBe(String(stat.size));
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(res.headers['last-modified']).toBe(stat.mtime.toUTCString());
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-disposition']).toBe('inline; filename="big.bin"');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(USER_FILE_HEADERS['Content-Security-Policy']);
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-range']).toBeUndefined();
  });

  it('sends a file smaller than one buffer, with its content type', async () => {
    const res = await request('/files/small.txt');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello, small file\n');
    expect(res.headers['content-length']).toBe(String(files['small.txt']!.length));
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('sends an empty file as an empty 200', async () => {
    const res = await request('/files/empty.bin');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(res.headers['content-length']).toBe('0');
    expect(res.headers.etag).toBeDefined();
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await request('/files/big.bin', {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
    expect(res.headers['content-length']).toBe(String(files['big.bin']!.length));
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toBeDefined();
  });

  it('answers HEAD with a range with the range length', async () => {
    const res = await request('/files/big.bin', { Range: 'bytes=10-19' }, 'HEAD');
    expect(res.status).toBe(206);
    expect(res.headers['content-length']).toBe('10');
    expect(res.body.length).toBe(0);
  });
});

describe('ranges', () => {
  const big = () => files['big.bin']!;
  const size = () => big().length;

  it('sends bytes=100-199 as a 206 with Content-Range', async () => {
    const res = await request('/files/big.bin', { Range: 'bytes=100-199' });
    expect(res.status).toBe(206);
    expect(res.body.equals(big().subarray(100, 200))).toBe(true);
    expect(res.headers['content-range']).toBe(`bytes 100-199/${size()}`);
    expect(res.headers['content-length']).toBe('100');
  });

  it('sends a suffix range (the last 500 bytes)', async () => {
    const res = await request('/files/big.bin', { Range: 'bytes=-500' });
    expect(res.status).toBe(206);
    expect(res.body.equals(big().subarray(size() - 500))).toBe(true);
    expect(res.headers['content-range']).toBe(`bytes ${size() - 500}-${size() - 1}/${size()}`);
  });

  it('sends an open-ended range to the end of the file', async () => {
    const res = await request('/files/big.bin', { Range: 'bytes=1000-' });
    expect(res.status).toBe(206);
    expect(res.body.equals(big().subarray(1000))).toBe(true);
    expect(res.headers['content-range']).toBe(`bytes 1000-${size() - 1}/${size()}`);
    expect(res.headers['content-length']).toBe(String(size() - 1000));
  });

  it('sends a range that starts and ends inside different buffers', async () => {
    const start = BUFFER - 7;
    const end = 3 * BUFFER + 11;
    const res = await request('/files/big.bin', { Range: `bytes=${start}-${end}` });
    expect(res.status).toBe(206);
    expect(res.body.equals(big().subarray(start, end + 1))).toBe(true);
  });

  it('answers an unsatisfiable range with 416, bytes */size and a JSON detail', async () => {
    const res = await request('/files/big.bin', { Range: `bytes=${size() + 10}-${size() + 20}` });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${size()}`);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['content-disposition']).toBeUndefined();
    const body = JSON.parse(res.body.toString()) as { detail: unknown };
    expect(body.detail).toEqual(expect.stringContaining('Range not satisfiable'));
  });

  it('answers several ranges with the whole file', async () => {
    const res = await request('/files/big.bin', { Range: 'bytes=0-9,5000-5009' });
    expect(res.status).toBe(200);
    expect(res.body.equals(big())).toBe(true);
    expect(res.headers['content-range']).toBeUndefined();
  });

  it('honours If-Range with the current ETag and ignores the range for another one', async () => {
    const { etag, 'last-modified': lastModified } = (await request('/files/big.bin', {}, 'HEAD')).headers;
    const same = await request('/files/big.bin', { Range: 'bytes=100-199', 'If-Range': etag! });
    expect(same.status).toBe(206);
    expect(same.body.equals(big().subarray(100, 200))).toBe(true);
    const other = await request('/files/big.bin', { Range: 'bytes=100-199', 'If-Range': '"0-0"' });
    expect(other.status).toBe(200);
    expect(other.body.equals(big())).toBe(true);

    const sameDate = await request('/files/big.bin', { Range: 'bytes=100-199', 'If-Range': lastModified! });
    expect(sameDate.status).toBe(206);
    const olderDate = await request('/files/big.bin', { Range: 'bytes=100-199', 'If-Range': new Date(Date.parse(lastModified!) - 60_000).toUTCString() });
    expect(olderDate.status).toBe(200);
    expect(olderDate.body.length).toBe(size());
  });
});

describe('revalidation', () => {
  it('answers If-None-Match with the ETag with an empty 304', async () => {
    const { etag } = (await request('/files/big.bin', {}, 'HEAD')).headers;
    const res = await request('/files/big.bin', { 'If-None-Match': etag! });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
    expect(res.headers.etag).toBe(etag);
  });

  it('answers If-Modified-Since with the Last-Modified date with 304, and a stale ETag with 200', async () => {
    const { 'last-modified': lastModified } = (await request('/files/small.txt', {}, 'HEAD')).headers;
    expect((await request('/files/small.txt', { 'If-Modified-Since': lastModified! })).status).toBe(304);
    const stale = await request('/files/small.txt', { 'If-None-Match': '"1-1"' });
    expect(stale.status).toBe(200);
    expect(stale.body.toString()).toBe('hello, small file\n');
  });
});

describe('not found', () => {
  it('answers a missing file with a JSON 404', async () => {
    const res = await request('/files/nope.bin');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect((JSON.parse(res.body.toString()) as { detail: unknown }).detail).toBe('File not found');
    // Thrown before any header: none of the file's headers on the error.
    expect(res.headers['accept-ranges']).toBeUndefined();
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('answers a folder with a JSON 404', async () => {
    const res = await request('/files/folder');
    expect(res.status).toBe(404);
    expect((JSON.parse(res.body.toString()) as { detail: unknown }).detail).toBe('File not found');
  });
});

describe('the shared buffer pool', () => {
  it('keeps parallel downloads of the same file byte-exact', async () => {
    const big = files['big.bin']!;
    const whole = Array.from({ length: 6 }, () => request('/files/big.bin'));
    const ranged = [request('/files/big.bin', { Range: `bytes=${BUFFER / 2}-` }), request('/files/big.bin', { Range: `bytes=7-${2 * BUFFER}` })];
    const results = await Promise.all([...whole, ...ranged]);
    for (const res of results.slice(0, 6)) {
      expect(res.status).toBe(200);
      expect(res.body.equals(big)).toBe(true);
    }
    expect(results[6]!.body.equals(big.subarray(BUFFER / 2))).toBe(true);
    expect(results[7]!.body.equals(big.subarray(7, 2 * BUFFER + 1))).toBe(true);
  });

  it('survives a client that leaves mid-download: no descriptor leaks, the next download is exact', async () => {
    const huge = path.join(dir, 'huge.bin');
    // Earlier tests' connections may still be closing: count from a quiet state.
    await until(async () => (await openConnections()) === 0, 'earlier connections closed');
    const before = fdCount();
    let openDuringDownload = 0;
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/files/huge.bin`, { agent: false }, (res) => {
        res.on('error', () => undefined);
        res.once('data', () => {
          openDuringDownload = fdsOn(huge);
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => {
        if (!req.destroyed) reject(err);
      });
    });
    // The promise resolves (a client leaving is no error to log) once the stream gave up, short of the end.
    const outcome = await until(() => settled.find((s) => s.name === 'huge.bin'), 'the aborted response settled');
    expect(outcome.error).toBeUndefined();
    expect(outcome.finished).toBe(false);
    expect(openDuringDownload).toBe(1);
    // The file descriptor and both socket ends are closed again (sockets close asynchronously).
    await until(() => fdsOn(huge) === 0, 'the file closed', 10_000);
    await until(async () => (await openConnections()) === 0 && fdCount() <= before, `descriptors back to ${before}`, 10_000);
    // Node closes a forgotten handle when it is collected: that would hide a leak from the counts.
    expect(gcClosed).toEqual([]);

    const res = await request('/files/big.bin');
    expect(res.status).toBe(200);
    expect(res.body.equals(files['big.bin']!)).toBe(true);
  });
});
