import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PartWriter } from '../../../server/downloads/download-part-writer.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});

afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

function chunksOf(data: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) chunks.push(data.subarray(at, at + size));
  return chunks;
}

describe('PartWriter', () => {
  it('writes the chunks in order, one writev per 256 KiB gathered (16 KiB TLS records: 16 chunks a call)', async () => {
    const file = path.join(dir, 'a.part');
    const data = randomBytes(3 * 1024 * 1024 + 3);
    const writer = await PartWriter.open(file, false);
    const writev = vi.spyOn(fs, 'writevSync');
    const sizes: number[] = [];
    for (const chunk of chunksOf(data, 16 * 1024)) {
      writer.write(chunk);
      sizes.push(fs.statSync(file).size);
    }
    // 3 MiB in 16 KiB chunks: on disk in steps of 256 KiB, 12 calls; the last 3 bytes wait for close.
    expect(writev).toHaveBeenCalledTimes(12);
    expect(new Set(sizes)).toEqual(new Set(Array.from({ length: 13 }, (_, i) => i * 256 * 1024)));
    await writer.close();
    expect(writev).toHaveBeenCalledTimes(13);
    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });

  it('goes on after a short write from the first byte the file system did not take', async () => {
    const file = path.join(dir, 'short.part');
    const data = randomBytes(300 * 1024);
    const writer = await PartWriter.open(file, false);
    const real = fs.writevSync;
    let calls = 0;
    // The first call takes 100 KiB + 5 bytes (inside the seventh chunk), the rest as asked.
    vi.spyOn(fs, 'writevSync').mockImplementation(((fd: number, chunks: Buffer[]) => {
      calls += 1;
      if (calls > 1) return real(fd, chunks);
      return fs.writeSync(fd, Buffer.concat(chunks).subarray(0, 100 * 1024 + 5));
    }) as typeof fs.writevSync);
    for (const chunk of chunksOf(data, 16 * 1024)) writer.write(chunk);
    await writer.close();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });

  it('tells the hasher every MiB, and the rest when asked or on close', async () => {
    const file = path.join(dir, 'report.part');
    const writer = await PartWriter.open(file, false);
    const reports: number[] = [];
    writer.onWritten = (bytes) => reports.push(bytes);
    for (let i = 0; i < 17; i++) writer.write(Buffer.alloc(64 * 1024));
    expect(reports).toEqual([1024 * 1024]);
    writer.write(Buffer.from('slow tail'));
    writer.flushPending();
    expect(reports).toEqual([1024 * 1024, 64 * 1024 + 9]);
    writer.write(Buffer.from('end'));
    await writer.close();
    expect(reports).toEqual([1024 * 1024, 64 * 1024 + 9, 3]);
    expect(fs.statSync(file).size).toBe(17 * 64 * 1024 + 12);
  });

  it('starts a writeback to the disk every writebackBytes without waiting, and close waits for it', async () => {
    const file = path.join(dir, 'writeback.part');
    const writer = await PartWriter.open(file, false, 1024 * 1024);
    let finishSync: (() => void) | null = null;
    const synced: number[] = [];
    // Hold the fdatasync's answer back: the writes must go on, and close must wait for it.
    const fdatasync = vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, callback: (err: Error | null) => void) => {
      synced.push(fs.fstatSync(fd).size);
      finishSync = () => callback(null);
    }) as typeof fs.fdatasync);

    for (let i = 0; i < 40; i++) writer.write(Buffer.alloc(64 * 1024));
    // One at a time: the second MiB found the first writeback still under way.
    expect(synced).toEqual([1024 * 1024]);
    expect(fs.statSync(file).size).toBe(40 * 64 * 1024);

    let closed = false;
    const closing = writer.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    finishSync!();
    await closing;
    expect(fdatasync).toHaveBeenCalledTimes(1);
  });

  it('takes an empty chunk without a write', async () => {
    const file = path.join(dir, 'empty.part');
    const writer = await PartWriter.open(file, false);
    writer.write(Buffer.alloc(0));
    writer.flushPending();
    writer.write(Buffer.from('after'));
    await writer.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('after');
  });

  it('appends to an existing part when resuming', async () => {
    const file = path.join(dir, 'resume.part');
    fs.writeFileSync(file, 'head-');
    const writer = await PartWriter.open(file, true);
    writer.write(Buffer.from('tail'));
    await writer.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('head-tail');
  });

  it.skipIf(!fs.existsSync('/dev/full'))('throws a full disk with the path, keeps refusing chunks, and close rejects with it', async () => {
    const writer = await PartWriter.open('/dev/full', false);
    expect(() => writer.write(Buffer.alloc(2 * 1024 * 1024))).toThrow(expect.objectContaining({ code: 'ENOSPC', path: '/dev/full' }));
    expect(() => writer.write(Buffer.alloc(10))).toThrow(expect.objectContaining({ code: 'ENOSPC' }));
    await expect(writer.close()).rejects.toMatchObject({ code: 'ENOSPC', path: '/dev/full' });
  });

  it.skipIf(!fs.existsSync('/dev/full'))('keeps a full disk met by the timer\'s flush for the next write and close, not throwing from the timer', async () => {
    const writer = await PartWriter.open('/dev/full', false);
    writer.write(Buffer.alloc(10));
    expect(() => writer.flushPending()).not.toThrow();
    expect(() => writer.write(Buffer.alloc(10))).toThrow(expect.objectContaining({ code: 'ENOSPC', path: '/dev/full' }));
    await expect(writer.close()).rejects.toMatchObject({ code: 'ENOSPC' });
  });
});
