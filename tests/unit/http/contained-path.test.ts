/**
 * The one path-containment rule every folder check calls (job outputs, input copies, asset paths,
 * the disk page, archive unpacking, the engine's `/view` and the stand-in).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBelow, isInside } from '../../../server/http/contained-path.js';
import { resolveUnder } from '../../../server/assets/asset-paths.js';
import { landingPath } from '../../../server/llm/runtimes/archive-entries.js';

const root = path.resolve('/data/out');

describe('path containment', () => {
  it('accepts the folder and what is below it, by name', () => {
    expect(isInside(root, root)).toBe(true);
    expect(isInside(root, `${root}/a/b.png`)).toBe(true);
    expect(isInside(`${root}/`, `${root}/a`)).toBe(true);
    expect(isInside('/', '/etc')).toBe(true);
  });

  it('refuses a sibling that shares the prefix, and a climb out', () => {
    expect(isInside(root, `${root}-old/a.png`)).toBe(false);
    expect(isInside(root, `${root}/../secret`)).toBe(false);
    expect(isInside(root, '/data')).toBe(false);
  });

  it('takes a name that only starts with two dots for a name, not a climb', () => {
    expect(isInside(root, `${root}/..hidden.png`)).toBe(true);
    expect(resolveUnder(root, ['..hidden.png'])).toBe(path.join(root, '..hidden.png'));
  });

  it('says below only for what is under the folder, not the folder itself', () => {
    expect(isBelow(root, root)).toBe(false);
    expect(isBelow(root, `${root}/a`)).toBe(true);
    expect(() => resolveUnder(root, ['.'])).toThrow(/escapes/);
  });

  it('is the rule archive unpacking lands by', () => {
    expect(landingPath(root, ['bin', 'llama-server'])).toBe(path.join(root, 'bin', 'llama-server'));
    expect(() => landingPath(root, ['..', 'x'])).toThrow(/outside/);
  });
});
