/**
 * House rule: no source file over 400 lines in server/, main/, preload/ or renderer/src/. A file
 * that grows past it is split by responsibility (what it does), not cut at a line count.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROOT } from '../../../server/config.js';

const MAX_LINES = 400;
const FOLDERS = ['server', 'main', 'preload', path.join('renderer', 'src')];
const SOURCE = /\.(ts|vue|js|mjs|cjs|css)$/;


function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (SOURCE.test(entry.name)) out.push(full);
  }
  return out;
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
function lineCount(file: string): number {
  const text = fs.readFileSync(file, 'utf8');
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') || text === '' ? newlines : newlines + 1;
}

describe('source file size', () => {
  it(`keeps every file in ${FOLDERS.join(', ')} at ${MAX_LINES} lines or fewer`, () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(path.join(APP_ROOT, folder)));
    expect(files.length).toBeGreaterThan(100);
    const over = files
      .map((file) => ({ file: path.relative(APP_ROOT, file).split(path.sep).join('/'), lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over, 'split these by responsibility').toEqual([]);
  });
});
