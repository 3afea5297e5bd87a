import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from '../../../renderer/src/lib/markdown.js';

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
