import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../server/process/child-output.js';

function split(chunks: (string | Buffer)[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line));
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe('LineSplitter', () => {
  it('joins lines split across chunks and emits a trailing partial line at the end', () => {
    expect(split(['hel', 'lo\nwor', 'ld\nlast'])).toEqual(['hello', 'world', 'last']);
  });

  it('strips CRLF line endings, even when \\r and \\n arrive in different chunks', () => {
    expect(split(['one\r', '\ntwo\r\n'])).toEqual(['one', 'two']);
  });

  it('keeps only the final state of a \\r-redrawn progress bar', () => {
    expect(split(['10%|#  |\r', '50%|## |\r', '100%|###|\n', 'done\n'])).toEqual(['100%|###|', 'done']);
  });

  it('does not split a multi-byte character cut between chunks', () => {
    const bytes = Buffer.from('città\n');
    expect(split([bytes.subarray(0, 4), bytes.subarray(4)])).toEqual(['città']);
  });

  it('cuts a line that never ends into bounded pieces', () => {
    const lines = split(['x'.repeat(40_000)]);
    expect(lines.join('')).toBe('x'.repeat(40_000));
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(16 * 1024);
  });
});
