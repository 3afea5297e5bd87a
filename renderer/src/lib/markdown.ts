/**
 * A small Markdown reader for LLM answers: fenced code, headings, lists, quotes, paragraphs;
 * inline code, bold, italics and links. It builds a tree that components render as text nodes,
 * never as HTML, so model output cannot inject markup; links keep only http(s) and mailto.
 */

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong' | 'em'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] };

export type Block =
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'heading'; level: number; children: Inline[] }
  | { kind: 'list'; ordered: boolean; items: Inline[][] }
  | { kind: 'quote'; children: Inline[] }
  | { kind: 'paragraph'; children: Inline[] };

const SAFE_HREF = /^(https?:\/\/|mailto:)/i;
const FENCE = /^\s*(```|~~~)\s*([\w+-]*)\s*$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const QUOTE = /^\s*>\s?(.*)$/;

/** Parse Markdown into blocks; an unclosed fence (a stream still arriving) runs to the end. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      i += 1;
      blocks.push({ kind: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, children: parseInline(heading[2]!) });
      i += 1;
      continue;
    }
    const ordered = NUMBERED.test(line);
    if (ordered || BULLET.test(line)) {
      const pattern = ordered ? NUMBERED : BULLET;
      const items: Inline[][] = [];
      while (i < lines.length && pattern.test(lines[i]!)) items.push(parseInline(pattern.exec(lines[i++]!)![1]!));
      blocks.push({ kind: 'list', ordered, items });
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) body.push(QUOTE.exec(lines[i++]!)![1]!);
      blocks.push({ kind: 'quote', children: parseInline(body.join('\n')) });
      continue;
    }
    const body: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !FENCE.test(lines[i]!) && !HEADING.test(lines[i]!) && !BULLET.test(lines[i]!) && !NUMBERED.test(lines[i]!) && !QUOTE.test(lines[i]!)) body.push(lines[i++]!);
    blocks.push({ kind: 'paragraph', children: parseInline(body.join('\n')) });
  }
  return blocks;
}

// Earliest match wins; code spans first so their content is never read as emphasis.
const INLINE: Array<{ re: RegExp; make: (m: RegExpExecArray) => Inline }> = [
  { re: /`([^`]+)`/, make: (m) => ({ kind: 'code', text: m[1]! }) },
  { re: /\[([^\]]+)\]\(([^)\s]+)\)/, make: (m) => (SAFE_HREF.test(m[2]!) ? { kind: 'link', href: m[2]!, children: parseInline(m[1]!) } : { kind: 'text', text: m[0] }) },
  { re: /\*\*([^*]+)\*\*|__([^_]+)__/, make: (m) => ({ kind: 'strong', children: parseInline(m[1] ?? m[2]!) }) },
  { re: /\*([^*\s][^*]*)\*|\b_([^_\s][^_]*)_\b/, make: (m) => ({ kind: 'em', children: parseInline(m[1] ?? m[2]!) }) },
];

/** Inline spans of one block's text. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let rest = text;
  while (rest) {
    let best: { index: number; match: RegExpExecArray; make: (m: RegExpExecArray) => Inline } | null = null;
    for (const rule of INLINE) {
      const match = rule.re.exec(rest);
      if (match && (!best || match.index < best.index)) best = { index: match.index, match, make: rule.make };
    }
    if (!best) {
      out.push({ kind: 'text', text: rest });
      break;
    }
    if (best.index > 0) out.push({ kind: 'text', text: rest.slice(0, best.index) });
    out.push(best.make(best.match));
    rest = rest.slice(best.index + best.match[0].length);
  }
  return out;
}
