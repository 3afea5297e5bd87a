import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PartWriter } from '../../../server/downloads/download-part-writer.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function chunksOf(data: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) chunks.push(data.subarray(at, at + size));
  return chunks;
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PartWriter', () => {
  it('writes every chunk in order, asks for a pause past its high-water mark and says when to go on', async () => {
    const file = path.join(dir, 'a.part');
    const data = randomBytes(20 * 1024 * 1024 + 3);
    const writer = await PartWriter.open(file, false);
    let drained = 0;
    writer.onDrain = () => (drained += 1);

    // Nothing completes while this loop runs, so the queue grows past the 16 MiB mark.
    const accepted = chunksOf(data, 64 * 1024).map((chunk) => writer.write(chunk));
    expect(accepted[0]).toBe(true);
    expect(accepted.at(-1)).toBe(false);
    await waitFor(() => drained === 1, 'the drain');
    await writer.close();

    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });

  it('puts a batch that is not full yet on disk when asked, before closing', async () => {
    const file = path.join(dir, 'slow.part');
    const writer = await PartWriter.open(file, false);
    writer.write(Buffer.from('first bytes of a slow download'));
    expect(fs.statSync(file).size).toBe(0);

    writer.flushPending();
    await waitFor(() => fs.statSync(file).size === 30, 'the partial batch on disk');
    await writer.close();
  });

  it('appends to an existing part when resuming', async () => {
    const file = path.join(dir, 'resume.part');
    fs.writeFileSync(file, 'head-');
    const writer = await PartWriter.open(file, true);
    writer.write(Buffer.from('tail'));
    await writer.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('head-tail');
  });

  it.skipIf(!fs.existsSync('/dev/full'))('reports a full disk once, with the path, and refuses more chunks', async () => {
    const writer = await PartWriter.open('/dev/full', false);
    const errors: Error[] = [];
    writer.onError = (error) => errors.push(error);

    writer.write(Buffer.alloc(2 * 1024 * 1024));
    await waitFor(() => errors.length > 0, 'the write error');
    expect(writer.write(Buffer.alloc(10))).toBe(false);
    await expect(writer.close()).rejects.toMatchObject({ code: 'ENOSPC', path: '/dev/full' });
    expect(errors).toHaveLength(1);
  });
});
