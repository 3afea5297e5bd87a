/**
 * The unpacker against hostile archives (real .tar.gz and .zip files on disk): entries that climb
 * out or are absolute, links (absolute, climbing, hard, dangling), a size cap a lying header cannot
 * dodge; a refused archive leaves nothing behind. Library aliases (a sibling symlink) become copies.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unpackArchive } from '../../../server/llm/runtimes/safe-unpack.js';
import { handTarGz } from '../../helpers/fake-llama-releases.js';

let dir: string;
beforeEach(() => void (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-unpack-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, bytes: Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
};
const unpack = (archive: string, maxBytes = 1 << 20) => unpackArchive(archive, path.join(dir, 'out'), { maxBytes });
const left = () => fs.readdirSync(dir).filter((n) => !/\.(tar\.gz|zip)$/.test(n));

describe('safe unpack', () => {
  it('unpacks files and folders, keeps the executable bit, and copies sibling library aliases', async () => {
    const src = path.join(dir, 'src');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'llama-server'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(src, 'libllama.so.0.5.0'), 'lib');
    fs.symlinkSync('libllama.so.0.5.0', path.join(src, 'libllama.so.0'));
    fs.symlinkSync('libllama.so.0', path.join(src, 'libllama.so'));
    const archive = path.join(dir, 'a.tar.gz');
    execFileSync('tar', ['-czf', archive, '--transform', 's,^\\.,llama-b1,', '-C', src, '.']);
    fs.rmSync(src, { recursive: true });
    await unpack(archive);
    const out = path.join(dir, 'out', 'llama-b1');
    expect(fs.readFileSync(path.join(out, 'libllama.so'), 'utf8')).toBe('lib');
    expect(fs.lstatSync(path.join(out, 'libllama.so')).isSymbolicLink()).toBe(false);
    expect(fs.statSync(path.join(out, 'llama-server')).mode & 0o111).not.toBe(0);
    expect(fs.statSync(path.join(out, 'libllama.so.0.5.0')).mode & 0o111).toBe(0);
  });

  it.each([
    ['a climbing entry', [{ name: 'ok.txt', content: Buffer.from('a') }, { name: 'x/../../escaped.txt', content: Buffer.from('b') }], /climbs out/],
    ['an absolute entry', [{ name: '/tmp/escaped-abs.txt', content: Buffer.from('b') }], /absolute/],
    ['an absolute link', [{ name: 'lib.so', type: '2' as const, link: '/etc/passwd' }], /link/],
    ['a climbing link', [{ name: 'lib.so', type: '2' as const, link: '../../etc/passwd' }], /link/],
    ['a hard link', [{ name: 'a', content: Buffer.from('x') }, { name: 'b', type: '1' as const, link: 'a' }], /hard link/],
    ['a dangling alias', [{ name: 'lib.so', type: '2' as const, link: 'missing.so' }], /not a file of the archive/],
    ['a device', [{ name: 'dev', type: '3' as const }], /not a plain file/],
    ['a second entry over a first', [{ name: 'a', content: Buffer.from('x') }, { name: 'a', content: Buffer.from('y') }], /EEXIST/],
  ])('refuses %s and leaves nothing behind', async (_what, entries, message) => {
    await expect(unpack(write('bad.tar.gz', handTarGz(entries)))).rejects.toThrow(message);
    expect(left()).toEqual([]);
    expect(fs.existsSync(path.join(os.tmpdir(), 'escaped-abs.txt'))).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(dir), 'escaped.txt'))).toBe(false);
  });

  it('refuses an archive over the size cap, however its headers lie', async () => {
    await expect(unpack(write('big.tar.gz', handTarGz([{ name: 'big', content: Buffer.alloc(5000) }])), 4096)).rejects.toThrow(/cap/);
    expect(left()).toEqual([]);
  });

  it('refuses a tar header whose size is negative (it would count against the cap as less than nothing)', async () => {
    const entries = [
      { name: 'minus', content: Buffer.alloc(0), sizeField: '-0000001000\0' },
      { name: 'big', content: Buffer.alloc(5000) },
    ];
    await expect(unpack(write('neg.tar.gz', handTarGz(entries)), 4096)).rejects.toThrow(/not a count of bytes/);
    expect(left()).toEqual([]);
  });

  it('reads zip archives (as the Windows builds come) with the same rules', async () => {
    const src = path.join(dir, 'zsrc');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'llama-server.exe'), 'MZ');
    fs.writeFileSync(path.join(src, 'sub', 'ggml.dll'), Buffer.alloc(3000, 7));
    execFileSync('zip', ['-qr', path.join(dir, 'good.zip'), '.'], { cwd: src });
    fs.symlinkSync('/etc/passwd', path.join(src, 'evil'));
    execFileSync('zip', ['-qry', path.join(dir, 'link.zip'), '.'], { cwd: src });
    fs.rmSync(src, { recursive: true });
    await unpack(path.join(dir, 'good.zip'));
    expect(fs.readFileSync(path.join(dir, 'out', 'sub', 'ggml.dll'))).toEqual(Buffer.alloc(3000, 7));
    fs.rmSync(path.join(dir, 'out'), { recursive: true });
    await expect(unpack(path.join(dir, 'link.zip'))).rejects.toThrow(/link/);
    // A climbing name, written by Python's zipfile (the zip tool refuses to make one).
    const py = `import zipfile\nz=zipfile.ZipFile(${JSON.stringify(path.join(dir, 'climb.zip'))},'w')\nz.writestr('../escaped.txt','x')\nz.close()`;
    execFileSync('python3', ['-c', py]);
    await expect(unpack(path.join(dir, 'climb.zip'))).rejects.toThrow(/climbs out/);
    expect(left()).toEqual([]);
    await expect(unpack(write('x.rar', Buffer.from('x')))).rejects.toThrow(/neither/);
  });
});
