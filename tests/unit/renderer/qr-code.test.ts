/**
 * The QR encoder against libqrencode: every version 1–10 at every error correction level, whole
 * symbols compared module by module (the fixture was made with Debian's `qrencode` 4.1.1; the
 * same comparison passed for all 160 versions and levels, and zbarimg decoded the encoder's own
 * mask choices, when the encoder was written).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeQr, qrPath, type QrLevel } from '../../../renderer/src/lib/qr-code.js';

interface Fixture {
  text: string;
  level: QrLevel;
  version: number;
  rows: string[];
}
const FIXTURE = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/qr/libqrencode-symbols.json'), 'utf8')) as { symbols: Fixture[] };

function modulesOf(fixture: Fixture): boolean[][] {
  const size = fixture.version * 4 + 17;
  return fixture.rows.map((hex) => BigInt(`0x${hex}`).toString(2).padStart(size, '0').split('').map((b) => b === '1'));
}

/** The mask a symbol's first copy of the format information names. */
function maskOf(modules: boolean[][]): number {
  const places: Array<[number, number]> = [];
  for (let i = 0; i <= 5; i++) places.push([8, i]);
  places.push([8, 7], [8, 8], [7, 8]);
  for (let i = 9; i < 15; i++) places.push([14 - i, 8]);
  const bits = places.reduce((acc, [x, y], i) => acc | ((modules[y]![x] ? 1 : 0) << i), 0);
  return ((bits ^ 0x5412) >> 10) & 7;
}

describe('encodeQr', () => {
  it.each(FIXTURE.symbols.map((f) => [`${f.level} version ${f.version}`, f] as const))('draws the same symbol as libqrencode (%s)', (_name, fixture) => {
    const expected = modulesOf(fixture);
    const symbol = encodeQr(fixture.text, fixture.level, maskOf(expected));
    expect(symbol.version).toBe(fixture.version);
    expect(symbol.size).toBe(expected.length);
    const diff = symbol.modules.flatMap((row, y) => row.flatMap((dark, x) => (dark === expected[y]![x] ? [] : [`${x},${y}`])));
    expect(diff).toEqual([]);
  });

  it('chooses a mask itself and writes it into the format information', () => {
    for (const level of ['L', 'M', 'Q', 'H'] as const) {
      const symbol = encodeQr('http://192.168.1.20:8188/login', level);
      expect(maskOf(symbol.modules)).toBe(symbol.mask);
      expect(symbol.mask).toBeGreaterThanOrEqual(0);
      expect(symbol.mask).toBeLessThan(8);
    }
  });

  it('refuses text longer than the largest symbol holds', () => {
    expect(() => encodeQr('x'.repeat(2954), 'L')).toThrow(/Too long for a QR code/);
    expect(encodeQr('x'.repeat(2953), 'L').version).toBe(40);
  });
});

describe('qrPath', () => {
  it('draws one unit square per dark module, shifted by the quiet zone', () => {
    const symbol = encodeQr('a', 'L');
    const dark = symbol.modules.flat().filter(Boolean).length;
    const path = qrPath(symbol, 4);
    expect(path.match(/M/g)).toHaveLength(dark);
    expect(path.startsWith('M4 4h1v1h-1z')).toBe(true);
  });
});
