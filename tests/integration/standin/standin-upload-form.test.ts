/**
 * How the stand-in reads `/upload/image` forms (Express + multer, like Studio), against bodies
 * encoded by the platform's own FormData encoder: bytes, fields and names arrive whole.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandinEngine, type StandinEngine } from '../../../server/standin/standin.server.js';

let engine: StandinEngine;
let root: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'standin-form-'));
  engine = await startStandinEngine({ port: 0, inputDir: path.join(root, 'input'), outputDir: path.join(root, 'output'), tempDir: path.join(root, 'temp') });
});

afterAll(async () => {
  await engine?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function post(body: RequestInit['body'], headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${engine.url}/upload/image`, { method: 'POST', body, headers });
  return { status: res.status, json: res.status === 200 ? await res.json() : null };
}

describe('stand-in upload form', () => {
  it('reads fields and binary files byte for byte', async () => {
    // Bytes that look like line breaks and dashes must survive.
    const bytes = Buffer.from([0x89, 0x50, 0x0d, 0x0a, 0x2d, 0x2d, 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0xff]);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'pic.png');
    form.append('subfolder', 'a/b');
    form.append('overwrite', 'true');
    expect(await post(form)).toEqual({ status: 200, json: { name: 'pic.png', subfolder: 'a/b', type: 'input' } });
    expect(fs.readFileSync(path.join(root, 'input', 'a', 'b', 'pic.png')).equals(bytes)).toBe(true);
  });

  it('keeps non-ASCII file names and empty files', async () => {
    const form = new FormData();
    form.append('image', new Blob([]), 'ritratto è.png');
    expect((await post(form)).json).toMatchObject({ name: 'ritratto è.png' });
    expect(fs.statSync(path.join(root, 'input', 'ritratto è.png')).size).toBe(0);
  });

  it('answers 400 to a body that is not a multipart form, and reads a quoted boundary', async () => {
    expect((await post(JSON.stringify({ image: 'x.png' }), { 'content-type': 'application/json' })).status).toBe(400);
    expect((await post('')).status).toBe(400);
    const body = ['--abc def', 'Content-Disposition: form-data; name="image"; filename="quoted.png"', 'Content-Type: image/png', '', 'png', '--abc def--', ''].join('\r\n');
    expect((await post(body, { 'content-type': 'multipart/form-data; boundary="abc def"' })).json).toMatchObject({ name: 'quoted.png' });
  });
});
