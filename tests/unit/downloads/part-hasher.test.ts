import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PartHasher } from '../../../server/downloads/part-hasher.js';

let dir: string;
let hashers: PartHasher[];

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function hasherFor(file: string): PartHasher {
  const hasher = new PartHasher(file);
  hashers.push(hasher);
  return hasher;
}

/** Let the event loop turn a few times, so a stray rejection or worker message would surface. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
  hashers = [];
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(hashers.map((hasher) => hasher.dispose()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('PartHasher', () => {
  it('hashes a file written in one go like crypto.createHash does', async () => {
    const file = path.join(dir, 'whole.part');
    const data = randomBytes(5 * 1024 * 1024 + 7);
    fs.writeFileSync(file, data);
    const hasher = hasherFor(file);

    hasher.advance(data.length);

    expect(await hasher.digest(data.length)).toBe(sha(data));
  });

  it('follows a file that grows while advance is called after each append', async () => {
    const file = path.join(dir, 'growing.part');
    const data = randomBytes(3 * 1024 * 1024 + 1234);
    const hasher = hasherFor(file);
    // Uneven steps, some bigger than the worker's 4 MiB read buffer would split, some tiny.
    const cuts = [1, 100_000, 1024 * 1024, 1024 * 1024 + 5, 2 * 1024 * 1024, data.length];
    let written = 0;
    for (const cut of cuts) {
      fs.appendFileSync(file, data.subarray(written, cut));
      written = cut;
      hasher.advance(written);
      // Give the worker a chance to hash part of the file before the next append.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }

    expect(await hasher.digest(data.length)).toBe(sha(data));
  });

  it('ignores advance calls that do not go past what was already reported', async () => {
    const file = path.join(dir, 'steady.part');
    const data = randomBytes(64 * 1024);
    fs.writeFileSync(file, data);
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    const hasher = hasherFor(file);

    hasher.advance(40_000);
    hasher.advance(40_000);
    hasher.advance(10_000);
    hasher.advance(0);
    hasher.advance(data.length);
    hasher.advance(data.length - 1);

    expect(posted.mock.calls.map(([message]) => message as unknown)).toEqual([{ upTo: 40_000 }, { upTo: data.length }]);
    expect(await hasher.digest(data.length)).toBe(sha(data));
  });

  it('may be created before the part file exists', async () => {
    const file = path.join(dir, 'later.part');
    const hasher = hasherFor(file);
    // The worker must not touch the file before bytes are reported.
    await settle();
    const data = randomBytes(200 * 1024);
    fs.writeFileSync(file, data);

    hasher.advance(data.length);

    expect(await hasher.digest(data.length)).toBe(sha(data));
  });

  it('gives the SHA-256 of empty input for digest(0) of a file that was never created', async () => {
    const file = path.join(dir, 'never.part');
    const hasher = hasherFor(file);

    expect(await hasher.digest(0)).toBe(sha(Buffer.alloc(0)));
    expect(fs.existsSync(file)).toBe(false);
  });

  it('rejects with EIO and the path when the file holds fewer bytes than claimed', async () => {
    const file = path.join(dir, 'short.part');
    fs.writeFileSync(file, randomBytes(1000));

    const direct = hasherFor(file);
    const directError: unknown = await direct.digest(2000).catch((err: unknown) => err);
    expect(directError).toBeInstanceOf(Error);
    expect(directError).toMatchObject({ code: 'EIO', syscall: 'read', path: file });
    expect((directError as Error).message).toMatch(/1000 bytes/);

    // The same when the over-claim came through advance (the worker fails before digest is asked).
    const advanced = hasherFor(file);
    advanced.advance(5000);
    await settle();
    await expect(advanced.digest(5000)).rejects.toMatchObject({ code: 'EIO', syscall: 'read', path: file });
  });

  it('can be disposed twice, and a hasher disposed unused reports no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const unused = new PartHasher(path.join(dir, 'unused.part'));
      await unused.dispose();
      await unused.dispose();

      const started = new PartHasher(path.join(dir, 'started.part'));
      fs.writeFileSync(path.join(dir, 'started.part'), randomBytes(10_000));
      started.advance(10_000);
      await started.dispose();
      await started.dispose();

      const finished = new PartHasher(path.join(dir, 'never.part'));
      await finished.digest(0);
      await finished.dispose();

      await settle();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('hashes files one after another, each from a new hash', async () => {
    const files = ['one', 'two', 'three'].map((name) => path.join(dir, `${name}.part`));
    const contents = [randomBytes(300_000), randomBytes(70_000), Buffer.alloc(0)];
    files.forEach((file, i) => fs.writeFileSync(file, contents[i]!));

    for (const [i, file] of files.entries()) {
      const hasher = hasherFor(file);
      hasher.advance(contents[i]!.length);
      expect(await hasher.digest(contents[i]!.length)).toBe(sha(contents[i]!));
    }
  });

  it('hashes a file right after a hasher that failed and one disposed before its digest', async () => {
    const short = path.join(dir, 'short.part');
    fs.writeFileSync(short, randomBytes(10));
    const good = path.join(dir, 'good.part');
    const data = randomBytes(50_000);
    fs.writeFileSync(good, data);

    await expect(hasherFor(short).digest(20)).rejects.toMatchObject({ code: 'EIO' });
    const abandoned = hasherFor(good);
    abandoned.advance(1000);
    await abandoned.dispose();
    const next = hasherFor(good);
    next.advance(data.length);

    expect(await next.digest(data.length)).toBe(sha(data));
  });
});
