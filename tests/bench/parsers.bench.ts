/**
 * The parsers that run on a request's thread or on each streamed token, at n and 2n characters of
 * hostile text: a linear parser prints a 2n/n ratio near 2 (a quadratic one near 4). The reference
 * is `String.prototype.indexOf` over the same text, measured in the same run.
 */
import { parseString } from '../../server/contracts/placeholder-syntax.js';
import { parseInline } from '../../renderer/src/lib/markdown.js';

function time(work: () => unknown, runs = 5): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    work();
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

/** Print n and 2n timings and their ratio for each parser and hostile shape. */
export async function run(_root: string): Promise<void> {
  const n = 600_000;
  const shapes: Array<[string, (size: number) => string, (text: string) => unknown]> = [
    ['placeholders: unclosed [[ after a question', (size) => `[[a:${'['.repeat(size)}`, parseString],
    ['placeholders: [[Q:a|b]] between scene markers', (size) => 'scene 1: [[Q:a|b]] '.repeat(Math.floor(size / 19)), parseString],
    ['markdown inline: unclosed [', (size) => '['.repeat(size), parseInline],
    ['markdown inline: half links', (size) => '[a]('.repeat(Math.floor(size / 4)), parseInline],
  ];
  for (const [name, make, parse] of shapes) {
    const small = make(n);
    const large = make(2 * n);
    const tSmall = time(() => parse(small));
    const tLarge = time(() => parse(large));
    const reference = time(() => large.indexOf('\0'));
    console.log(`${name}: ${tSmall.toFixed(1)} ms at ${n}, ${tLarge.toFixed(1)} ms at ${2 * n}, ratio ${(tLarge / tSmall).toFixed(2)} (indexOf over ${2 * n}: ${reference.toFixed(2)} ms)`);
  }
  await Promise.resolve();
}
