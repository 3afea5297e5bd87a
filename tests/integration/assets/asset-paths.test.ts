import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRelativePath, resolveUnder } from '../../../server/assets/asset-paths.js';
import { decodeMultipartName, safeUploadName } from '../../../server/assets/asset-uploads.js';
import { isStoredInZip, mediaKindOf } from '../../../server/media-types.js';

describe('asset path rules', () => {
  it('refuses traversal, absolute paths, backslashes, NUL and hidden names', () => {
    const refused: Array<[unknown, RegExp]> = [
      ['..', /traversal/],
      ['a/../b', /traversal/],
      ['a/..', /traversal/],
      ['a..b/c', /traversal/],
      ['/etc/passwd', /absolute/],
      ['\\\\server\\share', /absolute/],
      ['C:\\x', /absolute/],
      ['c:/x', /absolute/],
      ['a\\b', /invalid characters/],
      ['a\0b', /invalid characters/],
      ['', /empty/],
      ['./', /empty/],
      ['a/.hidden', /hidden/],
      [42, /empty/],
    ];
    for (const [raw, reason] of refused) {
      const check = checkRelativePath(raw);
      expect(check.ok, String(raw)).toBe(false);
      if (!check.ok) expect(check.reason).toMatch(reason);
    }
  });

  it('normalises accepted paths and keeps them under the root', () => {
    expect(checkRelativePath('job//final/./a.png')).toEqual({ ok: true, segments: ['job', 'final', 'a.png'], rel: 'job/final/a.png' });
    expect(resolveUnder('/data/out', ['job', 'a.png'])).toBe(path.resolve('/data/out/job/a.png'));
    expect(() => resolveUnder('/data/out', ['..', 'x'])).toThrow(/escapes/);
  });

  it('makes upload names safe and classifies media', () => {
    expect(safeUploadName('C:\\fakepath\\photo.png')).toBe('photo.png');
    expect(safeUploadName('../../etc/passwd')).toBe('passwd');
    expect(safeUploadName('..hidden.png')).toBe('hidden.png');
    expect(safeUploadName('a<b>:c.png')).toBe('a_b__c.png');
    expect(safeUploadName(`${'x'.repeat(300)}.jpeg`)).toHaveLength(180);
    expect(decodeMultipartName(Buffer.from('café.png', 'utf8').toString('latin1'))).toBe('café.png');
    expect(decodeMultipartName('café.png')).toBe('café.png');
    expect(decodeMultipartName('日本.png')).toBe('日本.png');
    expect([mediaKindOf('a.PNG'), mediaKindOf('a.mov'), mediaKindOf('a.txt'), mediaKindOf('.a.png')]).toEqual(['image', 'video', null, null]);
    expect([isStoredInZip('a.mp4'), isStoredInZip('a.json')]).toEqual([true, false]);
  });
});
