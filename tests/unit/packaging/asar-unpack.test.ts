/**
 * A native file inside app.asar cannot be loaded: `process.dlopen` and the dynamic loader need a
 * real file. Every `.node` addon and shared library of the production dependencies must be
 * matched by an `asarUnpack` pattern of electron-builder.yml, so the next native dependency
 * cannot ship broken the way sharp's libvips would have.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { asarUnpackFilter, nativeFilesOf, productionPackageDirs, ROOT } from '../../helpers/packaging.js';

describe('asarUnpack covers every native file of the production dependencies', () => {
  const packages = productionPackageDirs();
  const natives = nativeFilesOf(packages);
  const { unpacked, matcher } = asarUnpackFilter();

  it('finds the native files it must check (sqlite, sharp and libvips)', () => {
    const names = natives.map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
    expect(names.some((n) => n.startsWith('node_modules/better-sqlite3/') && n.endsWith('.node'))).toBe(true);
    expect(names.some((n) => /^node_modules\/@img\/sharp-[^/]+\/.*\.node$/.test(n))).toBe(true);
    expect(names.some((n) => /^node_modules\/@img\/sharp-libvips-[^/]+\/.*\.(so|dylib|dll)/.test(n))).toBe(true);
  });

  it(`leaves none of them inside app.asar (matched with ${matcher})`, () => {
    const packed = natives.filter((file) => !unpacked(file)).map((f) => path.relative(ROOT, f));
    expect(packed).toEqual([]);
  });

  it("unpacks every platform's sharp packages, not only this machine's, and nothing else", () => {
    // Other platforms' packages are not installed here; the patterns must cover them all the same.
    const elsewhere = [
      '@img/sharp-win32-x64/lib/sharp-win32-x64.node',
      '@img/sharp-win32-x64/lib/libvips-42.dll',
      '@img/sharp-darwin-arm64/lib/sharp-darwin-arm64.node',
      '@img/sharp-libvips-darwin-arm64/lib/libvips-cpp.8.17.3.dylib',
      '@img/sharp-linuxmusl-arm64/lib/sharp-linuxmusl-arm64.node',
      '@img/sharp-libvips-linux-arm64/lib/libvips-cpp.so.8.17.3',
    ];
    const packed = elsewhere.filter((rel) => !unpacked(path.join(ROOT, 'node_modules', rel)));
    expect(packed).toEqual([]);
    // The app's own code stays in the archive.
    expect(unpacked(path.join(ROOT, 'package.json'))).toBe(false);
    expect(unpacked(path.join(ROOT, 'dist', 'server', 'main.js'))).toBe(false);
    expect(unpacked(path.join(ROOT, 'node_modules', 'express', 'index.js'))).toBe(false);
  });
});
