/**
 * Plain-`http:` downloads: a 200 with a Content-Length, and a body whose length the head does not
 * give (chunked, or ended by the close), each placed whole and verified.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DownloadRequest } from '../../../server/downloads/download-options.js';
import { downloadFile } from '../../../server/downloads/file-download.js';

let dir: string;
let server: http.Server | null;

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A file server; `withLength` false leaves the length out of the head. */
async function serve(data: Buffer, withLength: boolean): Promise<string> {
  server = http.createServer((req, res) => {
    res.writeHead(200, withLength ? { 'Content-Length': String(data.length), ETag: '"v1"' } : { ETag: '"v1"' });
    // Several writes: the body arrives in many reads, some with the head.
    for (let at = 0; at < data.length; at += 300_000) res.write(data.subarray(at, at + 300_000));
    res.end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/model.safetensors`;
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

describe('plain-http downloads', () => {
  it('read a body with a Content-Length and place it verified', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 5);
    const url = await serve(data, true);
    const req = request(url, data);

    const result = await downloadFile(req);

    expect(result).toEqual({ sha256: sha(data), bytes: data.length });
    expect(fs.readFileSync(req.finalFile).equals(data)).toBe(true);
    expect(fs.existsSync(req.partFile)).toBe(false);
  });

  it('take a body whose length the head does not give, whole', async () => {
    const data = randomBytes(2 * 1024 * 1024 + 7);
    const url = await serve(data, false);
    const req = request(url, data);

    const result = await downloadFile(req);

    expect(result.bytes).toBe(data.length);
    expect(fs.readFileSync(req.finalFile).equals(data)).toBe(true);
  });
});
