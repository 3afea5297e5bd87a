/**
 * Plain-`http:` downloads read over the bare socket (`download-raw.ts`): the fast path for a
 * 200 with a Content-Length, and the stream path for a body that only the close ends.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { downloadFile, type DownloadRequest } from '../../../server/downloads/file-download.js';

let dir: string;
let server: http.Server | null;

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A file server that records the HTTP version of each request; `withLength` false leaves the close to end the body. */
async function serve(data: Buffer, withLength: boolean): Promise<{ url: string; versions: string[] }> {
  const versions: string[] = [];
  server = http.createServer((req, res) => {
    versions.push(req.httpVersion);
    res.writeHead(200, withLength ? { 'Content-Length': String(data.length), ETag: '"v1"' } : { ETag: '"v1"' });
    // Several writes: the body arrives in many reads, some with the head.
    for (let at = 0; at < data.length; at += 300_000) res.write(data.subarray(at, at + 300_000));
    res.end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/model.safetensors`, versions };
}

function request(url: string, data: Buffer): DownloadRequest {
  return {
    url,
    partFile: path.join(dir, 'models', 'model.safetensors.part'),
    finalFile: path.join(dir, 'models', 'model.safetensors'),
    expectedSha256: sha(data),
  };
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  server = null;
});

afterEach(async () => {
  if (server) await new Promise((resolve) => server!.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('plain-http downloads over the bare socket', () => {
  it('read a body with a Content-Length in one HTTP/1.0 request and place it verified', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 5);
    const { url, versions } = await serve(data, true);
    const req = request(url, data);

    const result = await downloadFile(req);

    expect(versions).toEqual(['1.0']);
    expect(result).toEqual({ sha256: sha(data), bytes: data.length });
    expect(fs.readFileSync(req.finalFile).equals(data)).toBe(true);
    expect(fs.existsSync(req.partFile)).toBe(false);
  });

  it('take a body that only the close ends, whole, from the same request', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 7);
    const { url, versions } = await serve(data, false);
    const req = request(url, data);

    const result = await downloadFile(req);

    expect(versions).toEqual(['1.0']);
    expect(result.bytes).toBe(data.length);
    expect(fs.readFileSync(req.finalFile).equals(data)).toBe(true);
  });
});
