/**
 * A small real filesystem (tmpfs) to fill up: disk-full tests run against a real `ENOSPC` and a
 * real `SQLITE_FULL`, not a thrown stand-in. Mounting needs root, or sudo without a password; CI
 * has one of the two (it installs packages with them). Elsewhere the tests that need it skip and
 * say why, except when `CI` is set: there a missing mount is a failure, never a silent skip.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TinyDisk {
  dir: string;
  /** Write a filler file until the filesystem refuses even one more byte. */
  fill(): void;
  /** Remove the filler: the space is back. */
  free(): void;
  unmount(): void;
}

/** How this machine can mount, or why it cannot. */
export function mountCommand(): { prefix: string[] } | { reason: string } {
  if (process.getuid?.() === 0) return { prefix: [] };
  try {
    execFileSync('sudo', ['-n', 'true'], { stdio: 'ignore' });
    return { prefix: ['sudo', '-n'] };
  } catch {
    return { reason: 'mounting a tmpfs needs root or passwordless sudo' };
  }
}

export function mountTinyDisk(sizeMb: number): TinyDisk {
  const how = mountCommand();
  if ('reason' in how) throw new Error(how.reason);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-tiny-disk-'));
  const run = (args: string[]) => {
    const [command, ...rest] = [...how.prefix, ...args];
    execFileSync(command!, rest, { stdio: 'pipe' });
  };
  run(['mount', '-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=1777`, 'tmpfs', dir]);
  const filler = path.join(dir, '.filler');
  return {
    dir,
    fill() {
      const fd = fs.openSync(filler, 'a');
      try {
        // Big writes first, then single bytes: nothing may be left for a small write either.
        for (const size of [1 << 20, 4096, 1]) {
          const chunk = Buffer.alloc(size, 1);
          try {
            for (;;) fs.writeSync(fd, chunk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    free() {
      fs.rmSync(filler, { force: true });
    },
    unmount() {
      // Lazy: a child that still holds a file open must not keep the mount (or the test) alive.
      run(['umount', '-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
