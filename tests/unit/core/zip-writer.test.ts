/**
 * Studio's streaming ZIP writer, read back by Info-ZIP's `unzip` (a test need `.ci/run` installs):
 * stored and deflated entries, empty and multi-buffer files, UTF-8 names, modes and times, the
 * ZIP64 layout (forced, as a real one needs files past 4 GiB), a file gone since the listing, and
 * a destination that breaks midway.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesBelow, writeZip, type ZipFileEntry } from '../../../server/zip-writer.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-zip-'));
  expect(spawnSync('unzip', ['-v']).error, 'unzip is needed for this test (`.ci/run` installs it)').toBeUndefined();
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function put(name: string, data: Buffer | string, mode = 0o644): ZipFileEntry & { data: Buffer } {
  const file = path.join(dir, 'src', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data, { mode });
  fs.chmodSync(file, mode);
  return { file, name, store: /\.(png|mp4)$/.test(name), data: Buffer.from(data) };
}

async function zipTo(entries: ZipFileEntry[], forceZip64 = false): Promise<string> {
  const target = path.join(dir, `out-${forceZip64 ? '64' : '32'}.zip`);
  await writeZip(entries, fs.createWriteStream(target), { forceZip64 });
  return target;
}

describe('the ZIP writer', () => {
  const files = () => [
    put('job-a/final/video.mp4', crypto.randomBytes(3 * 1024 * 1024 + 17)),
    put('job-a/preview/p1.png', crypto.randomBytes(1000)),
    put('notes.txt', 'hello '.repeat(50_000)),
    put('empty.txt', ''),
    put('empty.png', ''),
    put('Zoë ✓/run.sh', '#!/bin/sh\necho hi\n', 0o755),
  ];

  for (const forceZip64 of [false, true]) {
    it(`writes an archive unzip tests clean and extracts byte for byte${forceZip64 ? ' (ZIP64 records)' : ''}`, async () => {
      const entries = files();
      const zip = await zipTo(entries, forceZip64);
      const test = spawnSync('unzip', ['-t', zip], { encoding: 'utf8' });
      expect(test.stdout + test.stderr).toContain('No errors detected');
      expect(test.status).toBe(0);
      for (const entry of entries) {
        const extracted = spawnSync('unzip', ['-p', zip, entry.name], { maxBuffer: 64 * 1024 * 1024 }).stdout;
        expect(extracted.equals(entry.data), `${entry.name}: ${extracted.length} bytes extracted, ${entry.data.length} written`).toBe(true);
      }
      const verbose = spawnSync('unzip', ['-v', zip], { encoding: 'utf8' }).stdout;
      expect(verbose).toMatch(/\sStored\s.*job-a\/final\/video\.mp4/);
      expect(verbose).toMatch(/\sDefl:N\s.*notes\.txt/);
      const out = path.join(dir, 'x');
      expect(spawnSync('unzip', ['-q', zip, '-d', out]).status).toBe(0);
      expect(fs.statSync(path.join(out, 'Zoë ✓', 'run.sh')).mode & 0o777).toBe(0o755);
      // DOS times have 2-second steps.
      const source = fs.statSync(entries[0]!.file).mtimeMs;
      expect(Math.abs(fs.statSync(path.join(out, 'job-a', 'final', 'video.mp4')).mtimeMs - source)).toBeLessThanOrEqual(2000);
    });
  }

  for (const forceZip64 of [false, true]) {
    it(`writes an entry made in memory beside files${forceZip64 ? ' (ZIP64 records)' : ''}`, async () => {
      const json = Buffer.from(JSON.stringify({ prompt_id: 'p1', note: 'x'.repeat(5000) }, null, 2));
      const [file] = [put('output/a.png', crypto.randomBytes(2000))];
      const target = path.join(dir, 'mixed.zip');
      await writeZip([{ name: 'job.json', bytes: json }, file!], fs.createWriteStream(target), { forceZip64 });
      const test = spawnSync('unzip', ['-t', target], { encoding: 'utf8' });
      expect(test.status, test.stdout + test.stderr).toBe(0);
      expect(spawnSync('unzip', ['-p', target, 'job.json']).stdout.equals(json)).toBe(true);
      expect(spawnSync('unzip', ['-p', target, 'output/a.png']).stdout.equals(file!.data)).toBe(true);
      expect(spawnSync('unzip', ['-v', target], { encoding: 'utf8' }).stdout).toMatch(/\sDefl:N\s.*job\.json/);
    });
  }

  it('lists the files below a folder by path, hidden ones left out', () => {
    put('b/z.png', 'z');
    put('a.txt', 'a');
    put('.hidden/x.png', 'x');
    put('b/.part', 'p');
    expect(filesBelow(path.join(dir, 'src')).map((f) => f.name)).toEqual(['a.txt', 'b/z.png']);
  });

  it('leaves out a file removed since the listing', async () => {
    const entries = files();
    fs.rmSync(entries[1]!.file);
    const zip = await zipTo(entries);
    const listing = spawnSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).stdout.trim().split('\n');
    expect(listing).not.toContain('job-a/preview/p1.png');
    expect(listing).toHaveLength(entries.length - 1);
  });

  it('rejects once the destination breaks, without writing on', async () => {
    const entries = files();
    let received = 0;
    const out = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _enc, done) {
        received += chunk.length;
        if (received > 1024 * 1024) return done(new Error('connection reset'));
        setImmediate(done);
      },
    });
    await expect(writeZip(entries, out)).rejects.toThrow();
    expect(received).toBeLessThan(3 * 1024 * 1024);
  });

  it('stops when its signal fires', async () => {
    const controller = new AbortController();
    const out = new PassThrough({ highWaterMark: 1024 });
    let read = 0;
    out.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > 512 * 1024) controller.abort();
    });
    await expect(writeZip(files(), out, { signal: controller.signal })).rejects.toThrow(/went away/);
  });
});
