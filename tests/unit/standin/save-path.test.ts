/**
 * The engine's output path rules as the stand-in applies them: prefix split, counters, tokens,
 * and refusing prefixes that leave the output folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SavePathError, comfyFileName, expandPrefixTokens, resolveSaveTarget, vhsFileName } from '../../../server/standin/save-path.util.js';

let out: string;
beforeEach(() => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});
afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

const size = { width: 640, height: 480 };

describe('stand-in save paths', () => {
  it('splits the prefix into subfolder and name and creates the folder', () => {
    const target = resolveSaveTarget('job1/final/img', out, size, 'comfy');
    expect(target).toEqual({ folder: path.join(out, 'job1/final'), filename: 'img', counter: 1, subfolder: 'job1/final' });
    expect(fs.statSync(target.folder).isDirectory()).toBe(true);
    expect(comfyFileName(target.filename, target.counter, 'png')).toBe('img_00001_.png');
  });

  it('counts one past the highest matching file, trailing underscore required', () => {
    for (const name of ['img_00001_.png', 'img_00007_.webp', 'img_x.png', 'other_00009_.png', 'imgfoo_00003_.png', 'img_00020.png']) {
      fs.writeFileSync(path.join(out, name), '');
    }
    // img_00020.png passes the "img_" test, but "00020.png" is not a number for the engine: it counts as 0.
    expect(resolveSaveTarget('img', out, size, 'comfy').counter).toBe(8);
  });

  it('counts VideoHelperSuite names without the trailing underscore', () => {
    for (const name of ['clip_00002.mp4', 'clip_00005.png', 'clipper_00009.mp4']) fs.writeFileSync(path.join(out, name), '');
    const target = resolveSaveTarget('clip', out, size, 'vhs');
    expect(target.counter).toBe(6);
    expect(vhsFileName(target.filename, target.counter, 'mp4')).toBe('clip_00006.mp4');
  });

  it('refuses prefixes that leave the output folder', () => {
    expect(() => resolveSaveTarget('../outside/img', out, size, 'comfy')).toThrow(SavePathError);
    expect(() => resolveSaveTarget('/etc/img', out, size, 'comfy')).toThrow(/outside the output folder/);
    expect(resolveSaveTarget('a/../b/img', out, size, 'comfy').subfolder).toBe('b');
  });

  it('treats a trailing slash like Python normpath does', () => {
    expect(resolveSaveTarget('job/', out, size, 'comfy')).toMatchObject({ subfolder: '', filename: 'job' });
  });

  it('expands the tokens the engine expands and leaves the frontend ones alone', () => {
    const when = new Date(2026, 0, 2, 3, 4, 5);
    expect(expandPrefixTokens('%year%-%month%-%day%_%hour%%minute%%second%_%width%x%height%_%date:yyyy%_%Node.seed%', 640, 480, when)).toBe(
      '2026-01-02_030405_640x480_%date:yyyy%_%Node.seed%',
    );
    expect(resolveSaveTarget('s/%width%/img', out, size, 'comfy', when).subfolder).toBe('s/640');
  });
});
