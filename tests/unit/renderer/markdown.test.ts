import { describe, expect, it } from 'vitest';
import { IncrementalMarkdown, parseInline, parseMarkdown } from '../../../renderer/src/lib/markdown.js';

describe('parseMarkdown', () => {
  it('reads fences, headings, lists, quotes and paragraphs', () => {
    const blocks = parseMarkdown('# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n```ts\nconst a = 1;\n```');
    expect(blocks.map((b) => b.kind)).toEqual(['heading', 'paragraph', 'list', 'list', 'quote', 'code']);
    expect(blocks[5]).toEqual({ kind: 'code', lang: 'ts', text: 'const a = 1;' });
    expect(blocks[3]).toMatchObject({ kind: 'list', ordered: true });
  });

  it('keeps HTML as plain text and drops links that are not http(s) or mailto', () => {
    const [para] = parseMarkdown('<script>alert(1)</script> [x](javascript:alert(1)) [ok](https://example.com)');
    expect(para).toMatchObject({ kind: 'paragraph' });
    const nodes = (para as { children: unknown[] }).children;
    expect(nodes[0]).toEqual({ kind: 'text', text: '<script>alert(1)</script> ' });
    const links = nodes.filter((n) => (n as { kind: string }).kind === 'link');
    expect(links).toEqual([{ kind: 'link', href: 'https://example.com', children: [{ kind: 'text', text: 'ok' }] }]);
    expect(nodes.map((n) => (n as { text?: string }).text ?? '').join('')).toContain('[x](javascript:alert(1)');
    expect(nodes).toContainEqual({ kind: 'link', href: 'https://example.com', children: [{ kind: 'text', text: 'ok' }] });
  });

  it('lets an unclosed fence (an answer still streaming) run to the end', () => {
    expect(parseMarkdown('text\n```\npartial')).toEqual([
      { kind: 'paragraph', children: [{ kind: 'text', text: 'text' }] },
      { kind: 'code', lang: '', text: 'partial' },
    ]);
  });

  it('does not read emphasis inside code spans', () => {
    expect(parseInline('`a*b*c`')).toEqual([{ kind: 'code', text: 'a*b*c' }]);
  });
});

/**
 * The chat page parses every answer as it streams: text full of unclosed `[`, lone `*`, `_` or
 * backticks used to make the inline regexes re-scan the rest of the text from each of them
 * (quadratic: 40 000 characters froze the tab for a second per token). At 1 MB each shape must
 * come back as plain text; a quadratic parser fails by not finishing. Nothing here measures time.
 */
describe('hostile answers', () => {
  const MB = 1024 * 1024;

  it('reads 1 MB of unclosed brackets, half links, lone stars, underscores and backticks as plain text', () => {
    for (const text of ['['.repeat(MB), '[a]('.repeat(MB / 4), '[x'.repeat(MB / 2), '* '.repeat(MB / 2), '_a '.repeat(MB / 3), '``'.repeat(MB / 2)]) {
      expect(parseInline(text), text.slice(0, 8)).toEqual([{ kind: 'text', text }]);
    }
  });

  it('still finds the spans between the noise', () => {
    const noise = '['.repeat(100_000);
    expect(parseInline(`[ok](https://example.com) ${noise} **bold** ${noise}`)).toEqual([
      { kind: 'link', href: 'https://example.com', children: [{ kind: 'text', text: 'ok' }] },
      { kind: 'text', text: ` ${noise} ` },
      { kind: 'strong', children: [{ kind: 'text', text: 'bold' }] },
      { kind: 'text', text: ` ${noise}` },
    ]);
  });
});

describe('IncrementalMarkdown (an answer streaming in)', () => {
  it('parses again only from the last blocks, and ends with the same blocks as a full parse', () => {
    const answer = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `## Part ${i}` : i % 3 === 1 ? `Some *text* ${'['.repeat(50)} number ${i}.` : `- item ${i}\n- next`)).join('\n\n');
    const markdown = new IncrementalMarkdown();
    /** How many lines before the end each update started parsing at. */
    const reread: number[] = [];
    for (let end = 1; end <= answer.length; end += 7) {
      const text = answer.slice(0, end);
      markdown.update(text);
      reread.push(text.split('\n').length - markdown.parsedFrom);
    }
    expect(markdown.update(answer)).toEqual(parseMarkdown(answer));
    // Each token re-reads the answer's last two blocks (a few lines here), never the whole answer.
    expect(Math.max(...reread)).toBeLessThanOrEqual(6);
    // A text that is not an extension (a new chat) is parsed from the start.
    expect(markdown.update('# Other')).toEqual(parseMarkdown('# Other'));
    expect(markdown.parsedFrom).toBe(0);
  });
});
