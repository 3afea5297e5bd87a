/**
 * Studio's copies of uploaded inputs follow the real-path rule: a subfolder of the input folder
 * that is a link to elsewhere carries neither the copy nor the removal out of the input folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputCopies } from '../../../server/jobs/input-copies.js';

let root: string;
let input: string;
let outside: string;
let upload: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-input-copies-'));
  input = path.join(root, 'input');
  outside = path.join(root, 'outside');
  fs.mkdirSync(input);
  fs.mkdirSync(outside);
  upload = path.join(root, 'upload.tmp');
  fs.writeFileSync(upload, 'image bytes');
  // An engine extension, a shared mount or another user planted a link to a folder elsewhere.
  fs.symlinkSync(outside, path.join(input, 'linked'));
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('InputCopies', () => {
  it('keeps a copy inside the input folder, subfolders included, and removes it again', async () => {
    const copies = new InputCopies({ dir: input, shared: () => false });
    await copies.keep(upload, 'sub/photo.png');
    expect(fs.readFileSync(path.join(input, 'sub', 'photo.png'), 'utf8')).toBe('image bytes');
    expect(fs.readdirSync(path.join(input, 'sub'))).toEqual(['photo.png']);
    await copies.remove('sub/photo.png');
    expect(fs.existsSync(path.join(input, 'sub', 'photo.png'))).toBe(false);
  });

  it('copies nothing when the engine shares the input folder', async () => {
    await new InputCopies({ dir: input, shared: () => true }).keep(upload, 'photo.png');
    expect(fs.existsSync(path.join(input, 'photo.png'))).toBe(false);
  });

  it('writes nothing through a linked subfolder', async () => {
    const copies = new InputCopies({ dir: input, shared: () => false });
    await copies.keep(upload, 'linked/photo.png');
    await copies.keep(upload, 'linked/deeper/photo.png');
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('removes nothing through a linked subfolder', async () => {
    fs.writeFileSync(path.join(outside, 'victim.png'), 'not Studio’s');
    const copies = new InputCopies({ dir: input, shared: () => false });
    await copies.remove('linked/victim.png');
    expect(fs.readFileSync(path.join(outside, 'victim.png'), 'utf8')).toBe('not Studio’s');
  });

  it('refuses names that leave the folder lexically', async () => {
    fs.writeFileSync(path.join(root, 'secret'), 'x');
    const copies = new InputCopies({ dir: input, shared: () => false });
    await copies.remove('../secret');
    await copies.keep(upload, '../planted.png');
    expect(fs.existsSync(path.join(root, 'secret'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'planted.png'))).toBe(false);
  });
});
