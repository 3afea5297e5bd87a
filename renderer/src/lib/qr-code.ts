/**
 * A QR code encoder (ISO/IEC 18004, byte mode, versions 1–40, error correction L/M/Q/H), so the
 * first-run guide can show the LAN address for a phone's camera without a network dependency.
 * The steps follow the standard and Project Nayuki's reference encoder (MIT); the unit tests
 * compare whole symbols with libqrencode's.
 */

export type QrLevel = 'L' | 'M' | 'Q' | 'H';

/** A symbol: `modules[y][x]` is true for a dark module; no quiet zone included. */
export interface QrSymbol {
  version: number;
  level: QrLevel;
  mask: number;
  size: number;
  modules: boolean[][];
}

const LEVEL_INDEX: Record<QrLevel, number> = { L: 0, M: 1, Q: 2, H: 3 };
/** The two format bits of each level (not in L, M, Q, H order). */
const LEVEL_FORMAT_BITS: Record<QrLevel, number> = { L: 1, M: 0, Q: 3, H: 2 };

// Per level, then per version (index 0 unused): error correction codewords per block, and blocks.
const ECC_PER_BLOCK = [
  [-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  [-1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  [-1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
] as const;
const BLOCKS = [
  [-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  [-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  [-1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  [-1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
] as const;

const bit = (value: number, i: number): boolean => ((value >>> i) & 1) !== 0;

/** Modules left for data and error correction once the function patterns are drawn. */
function rawDataModules(version: number): number {
  let result = (16 * version + 128) * version + 64;
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2;
    result -= (25 * align - 10) * align - 55;
    if (version >= 7) result -= 36;
  }
  return result;
}

function dataCodewords(version: number, level: QrLevel): number {
  const l = LEVEL_INDEX[level];
  return Math.floor(rawDataModules(version) / 8) - ECC_PER_BLOCK[l]![version]! * BLOCKS[l]![version]!;
}

/** Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1. */
function gfMultiply(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z & 0xff;
}

function rsDivisor(degree: number): number[] {
  const result = new Array<number>(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < degree; j++) {
      result[j] = gfMultiply(result[j]!, root);
      if (j + 1 < degree) result[j]! ^= result[j + 1]!;
    }
    root = gfMultiply(root, 0x02);
  }
  return result;
}

function rsRemainder(data: readonly number[], divisor: readonly number[]): number[] {
  const result = divisor.map(() => 0);
  for (const b of data) {
    const factor = b ^ result.shift()!;
    result.push(0);
    divisor.forEach((coef, i) => (result[i]! ^= gfMultiply(coef, factor)));
  }
  return result;
}

/** The data codewords: byte mode indicator, length, the bytes, terminator and padding. */
function encodeData(bytes: Uint8Array, version: number, level: QrLevel): number[] {
  const bits: number[] = [];
  const push = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  push(0b0100, 4);
  push(bytes.length, version <= 9 ? 8 : 16);
  for (const b of bytes) push(b, 8);
  const capacity = dataCodewords(version, level) * 8;
  push(0, Math.min(4, capacity - bits.length));
  push(0, (8 - (bits.length % 8)) % 8);
  for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) push(pad, 8);
  const out: number[] = [];
  for (let i = 0; i < bits.length; i += 8) out.push(bits.slice(i, i + 8).reduce((acc, b) => (acc << 1) | b, 0));
  return out;
}

/** Split into blocks, add each block's error correction, and interleave. */
function withErrorCorrection(data: readonly number[], version: number, level: QrLevel): number[] {
  const l = LEVEL_INDEX[level];
  const blockCount = BLOCKS[l]![version]!;
  const eccLength = ECC_PER_BLOCK[l]![version]!;
  const raw = Math.floor(rawDataModules(version) / 8);
  const shortBlocks = blockCount - (raw % blockCount);
  const shortDataLength = Math.floor(raw / blockCount) - eccLength;
  const divisor = rsDivisor(eccLength);
  const blocks: Array<{ data: number[]; ecc: number[] }> = [];
  for (let i = 0, at = 0; i < blockCount; i++) {
    const length = shortDataLength + (i < shortBlocks ? 0 : 1);
    const part = data.slice(at, at + length);
    at += length;
    blocks.push({ data: part, ecc: rsRemainder(part, divisor) });
  }
  const out: number[] = [];
  for (let i = 0; i <= shortDataLength; i++) for (const b of blocks) if (i < b.data.length) out.push(b.data[i]!);
  for (let i = 0; i < eccLength; i++) for (const b of blocks) out.push(b.ecc[i]!);
  return out;
}

function alignmentPositions(version: number, size: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
  const result = [6];
  for (let pos = size - 7; result.length < count; pos -= step) result.splice(1, 0, pos);
  return result;
}

class Matrix {
  readonly modules: boolean[][];
  readonly reserved: boolean[][];
  constructor(readonly size: number) {
    this.modules = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
    this.reserved = Array.from({ length: size }, () => new Array<boolean>(size).fill(false));
  }
  fn(x: number, y: number, dark: boolean): void {
    this.modules[y]![x] = dark;
    this.reserved[y]![x] = true;
  }
}

function drawFunctionPatterns(m: Matrix, version: number): void {
  const { size } = m;
  for (let i = 0; i < size; i++) {
    m.fn(6, i, i % 2 === 0);
    m.fn(i, 6, i % 2 === 0);
  }
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]] as const) {
    for (let dy = -4; dy <= 4; dy++) {
      for (let dx = -4; dx <= 4; dx++) {
        const dist = Math.max(Math.abs(dx), Math.abs(dy));
        const x = cx + dx;
        const y = cy + dy;
        if (x >= 0 && x < size && y >= 0 && y < size) m.fn(x, y, dist !== 2 && dist !== 4);
      }
    }
  }
  const align = alignmentPositions(version, size);
  const last = align.length - 1;
  align.forEach((ay, i) =>
    align.forEach((ax, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) m.fn(ax + dx, ay + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
    }),
  );
  drawFormatBits(m, 'L', 0); // reserves the area; drawn for real once the mask is chosen
  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const a = size - 11 + (i % 3);
      const b = Math.floor(i / 3);
      m.fn(a, b, bit(bits, i));
      m.fn(b, a, bit(bits, i));
    }
  }
}

function drawFormatBits(m: Matrix, level: QrLevel, mask: number): void {
  const data = (LEVEL_FORMAT_BITS[level] << 3) | mask;
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const bits = ((data << 10) | rem) ^ 0x5412;
  const { size } = m;
  for (let i = 0; i <= 5; i++) m.fn(8, i, bit(bits, i));
  m.fn(8, 7, bit(bits, 6));
  m.fn(8, 8, bit(bits, 7));
  m.fn(7, 8, bit(bits, 8));
  for (let i = 9; i < 15; i++) m.fn(14 - i, 8, bit(bits, i));
  for (let i = 0; i < 8; i++) m.fn(size - 1 - i, 8, bit(bits, i));
  for (let i = 8; i < 15; i++) m.fn(8, size - 15 + i, bit(bits, i));
  m.fn(8, size - 8, true); // the dark module
}

/** Place the codewords in the zigzag order, two columns at a time from the bottom right. */
function drawCodewords(m: Matrix, codewords: readonly number[]): void {
  const { size } = m;
  let i = 0;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let vert = 0; vert < size; vert++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = ((right + 1) & 2) === 0 ? size - 1 - vert : vert;
        if (!m.reserved[y]![x] && i < codewords.length * 8) {
          m.modules[y]![x] = bit(codewords[i >>> 3]!, 7 - (i & 7));
          i++;
        }
      }
    }
  }
}

const MASKS: ReadonlyArray<(x: number, y: number) => boolean> = [
  (x, y) => (x + y) % 2 === 0,
  (_x, y) => y % 2 === 0,
  (x) => x % 3 === 0,
  (x, y) => (x + y) % 3 === 0,
  (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
  (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
  (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
  (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
];

function applyMask(m: Matrix, mask: number): void {
  for (let y = 0; y < m.size; y++) for (let x = 0; x < m.size; x++) if (!m.reserved[y]![x] && MASKS[mask]!(x, y)) m.modules[y]![x] = !m.modules[y]![x];
}

/** The standard's penalty: long runs, 2×2 blocks, finder-like patterns, dark/light balance. */
function penalty(modules: readonly boolean[][]): number {
  const size = modules.length;
  let score = 0;
  const addHistory = (run: number, history: number[]) => {
    if (history[0] === 0) run += size; // the light border before the first run
    history.pop();
    history.unshift(run);
  };
  const finderLike = (h: readonly number[]) => {
    const n = h[1]!;
    const core = n > 0 && h[2] === n && h[3] === n * 3 && h[4] === n && h[5] === n;
    return (core && h[0]! >= n * 4 && h[6]! >= n ? 1 : 0) + (core && h[6]! >= n * 4 && h[0]! >= n ? 1 : 0);
  };
  const line = (at: (i: number) => boolean) => {
    let color = false;
    let run = 0;
    const history = [0, 0, 0, 0, 0, 0, 0];
    for (let i = 0; i < size; i++) {
      if (at(i) === color) {
        run++;
        if (run === 5) score += 3;
        else if (run > 5) score++;
      } else {
        addHistory(run, history);
        if (!color) score += finderLike(history) * 40;
        color = at(i);
        run = 1;
      }
    }
    if (color) {
      addHistory(run, history);
      run = 0;
    }
    addHistory(run + size, history); // the light border after the last run
    score += finderLike(history) * 40;
  };
  for (let y = 0; y < size; y++) line((x) => modules[y]![x]!);
  for (let x = 0; x < size; x++) line((y) => modules[y]![x]!);
  let dark = 0;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (modules[y]![x]) dark++;
      const c = modules[y]![x];
      if (x < size - 1 && y < size - 1 && c === modules[y]![x + 1] && c === modules[y + 1]![x] && c === modules[y + 1]![x + 1]) score += 3;
    }
  }
  const total = size * size;
  score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
  return score;
}

/**
 * Encode `text` (as UTF-8) in the smallest version that holds it at `level`. `mask` forces a
 * mask pattern (0–7); by default the one with the lowest penalty is used.
 */
export function encodeQr(text: string, level: QrLevel = 'M', mask?: number): QrSymbol {
  const bytes = new TextEncoder().encode(text);
  let version = 1;
  while (4 + (version <= 9 ? 8 : 16) + bytes.length * 8 > dataCodewords(version, level) * 8) {
    if (++version > 40) throw new Error(`Too long for a QR code: ${bytes.length} bytes`);
  }
  const codewords = withErrorCorrection(encodeData(bytes, version, level), version, level);
  const build = (chosen: number): Matrix => {
    const m = new Matrix(version * 4 + 17);
    drawFunctionPatterns(m, version);
    drawCodewords(m, codewords);
    applyMask(m, chosen);
    drawFormatBits(m, level, chosen);
    return m;
  };
  let best = mask ?? 0;
  if (mask === undefined) {
    let bestScore = Infinity;
    for (let candidate = 0; candidate < 8; candidate++) {
      const score = penalty(build(candidate).modules);
      if (score < bestScore) [best, bestScore] = [candidate, score];
    }
  }
  const m = build(best);
  return { version, level, mask: best, size: m.size, modules: m.modules };
}

/** An SVG path (`M x y h1 v1 h-1 z` per dark module) drawing the symbol inside a quiet zone of `border` modules. */
export function qrPath(symbol: QrSymbol, border = 4): string {
  const parts: string[] = [];
  symbol.modules.forEach((row, y) => row.forEach((dark, x) => dark && parts.push(`M${x + border} ${y + border}h1v1h-1z`)));
  return parts.join('');
}
