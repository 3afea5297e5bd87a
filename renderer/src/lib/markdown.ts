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
  return parseLines(splitLines(source), 0).map((b) => b.block);
}

/**
 * Markdown of a text that grows at its end (an answer streaming in): each update parses again only
 * from the line where the next-to-last block started. Appending changes only the last line, which
 * sits in the last block; that line may still join the block before it (`-` becoming `- item`
 * after a list), but no earlier one: their extents were settled by complete lines. The work per
 * token is linear in the last two blocks, not in the whole answer.
 */
export class IncrementalMarkdown {
  private source = '';
  private parsed: LocatedBlock[] = [];
  /** The line the last update started parsing at (0: it parsed everything). */
  parsedFrom = 0;

  /** The blocks of `source`; reuses what it can when `source` extends the previous text. */
  update(source: string): Block[] {
    if (source === this.source) return this.parsed.map((b) => b.block);
    const lines = splitLines(source);
    if (!source.startsWith(this.source) || this.parsed.length === 0) {
      this.parsedFrom = 0;
      this.parsed = parseLines(lines, 0);
    } else {
      const keep = Math.max(0, this.parsed.length - 2);
      this.parsedFrom = keep === 0 ? 0 : this.parsed[keep]!.line;
      this.parsed = [...this.parsed.slice(0, keep), ...parseLines(lines, this.parsedFrom)];
    }
    this.source = source;
    return this.parsed.map((b) => b.block);
  }
}

interface LocatedBlock {
  block: Block;
  /** The line the block starts on. */
  line: number;
}

function splitLines(source: string): string[] {
  return source.replace(/\r\n?/g, '\n').split('\n');
}

function parseLines(lines: readonly string[], from: number): LocatedBlock[] {
  const blocks: LocatedBlock[] = [];
  let i = from;
  const push = (block: Block, line: number) => blocks.push({ block, line });
  while (i < lines.length) {
    const line = lines[i]!;
    const at = i;
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      i += 1;
      push({ kind: 'code', lang: fence[2] ?? '', text: body.join('\n') }, at);
      continue;
    }
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      push({ kind: 'heading', level: heading[1]!.length, children: parseInline(heading[2]!) }, at);
      i += 1;
      continue;
    }
    const ordered = NUMBERED.test(line);
    if (ordered || BULLET.test(line)) {
      const pattern = ordered ? NUMBERED : BULLET;
      const items: Inline[][] = [];
      while (i < lines.length && pattern.test(lines[i]!)) items.push(parseInline(pattern.exec(lines[i++]!)![1]!));
      push({ kind: 'list', ordered, items }, at);
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) body.push(QUOTE.exec(lines[i++]!)![1]!);
      push({ kind: 'quote', children: parseInline(body.join('\n')) }, at);
      continue;
    }
    const body: string[] = [];
    while (i < lines.length && lines[i]!.trim() && !FENCE.test(lines[i]!) && !HEADING.test(lines[i]!) && !BULLET.test(lines[i]!) && !NUMBERED.test(lines[i]!) && !QUOTE.test(lines[i]!)) body.push(lines[i++]!);
    push({ kind: 'paragraph', children: parseInline(body.join('\n')) }, at);
  }
  return blocks;
}

/**
 * Inline spans of one block's text, in one left-to-right pass: at each position the rules are
 * tried in order (code spans first, so their content is never read as emphasis; then links,
 * strong, emphasis), and the earliest position that starts a span wins. Each try is a constant
 * number of lookups in "next `]`/`*`/…" tables, so text full of unclosed `[` or lone `*` costs
 * no more than plain text (a backtracking regex re-scanned the rest of the text from every `[`).
 */
export function parseInline(text: string): Inline[] {
  const next = nextTables(text);
  const out: Inline[] = [];
  let rest = 0;
  let pos = 0;
  while (pos < text.length) {
    const span = spanAt(text, pos, rest, next);
    if (!span) {
      pos += 1;
      continue;
    }
    if (pos > rest) out.push({ kind: 'text', text: text.slice(rest, pos) });
    out.push(span.node);
    rest = pos = span.end;
  }
  if (rest < text.length) out.push({ kind: 'text', text: text.slice(rest) });
  return out;
}

interface NextTables {
  backtick: Int32Array;
  closeBracket: Int32Array;
  /** `)` or whitespace: where a link target ends. */
  targetEnd: Int32Array;
  star: Int32Array;
  underscore: Int32Array;
}

/** For each position, the index of the next such character at or after it (`text.length` when none). */
function nextTables(text: string): NextTables {
  const n = text.length;
  const make = () => new Int32Array(n + 2).fill(n);
  const tables: NextTables = { backtick: make(), closeBracket: make(), targetEnd: make(), star: make(), underscore: make() };
  for (let i = n - 1; i >= 0; i--) {
    const c = text[i]!;
    tables.backtick[i] = c === '`' ? i : tables.backtick[i + 1]!;
    tables.closeBracket[i] = c === ']' ? i : tables.closeBracket[i + 1]!;
    tables.targetEnd[i] = c === ')' || /\s/.test(c) ? i : tables.targetEnd[i + 1]!;
    tables.star[i] = c === '*' ? i : tables.star[i + 1]!;
    tables.underscore[i] = c === '_' ? i : tables.underscore[i + 1]!;
  }
  return tables;
}

const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/**
 * The span starting exactly at `pos`, if any. `rest` is where unparsed text begins: like the old
 * per-rest regexes, a `_` there counts as a word boundary.
 */
function spanAt(text: string, pos: number, rest: number, next: NextTables): { node: Inline; end: number } | null {
  const c = text[pos];
  if (c === '`') {
    const close = next.backtick[pos + 1]!;
    if (close < text.length && close > pos + 1) return { node: { kind: 'code', text: text.slice(pos + 1, close) }, end: close + 1 };
  }
  if (c === '[') {
    const close = next.closeBracket[pos + 1]!;
    if (close < text.length && close > pos + 1 && text[close + 1] === '(') {
      const end = next.targetEnd[close + 2]!;
      if (end < text.length && end > close + 2 && text[end] === ')') {
        const href = text.slice(close + 2, end);
        const node: Inline = SAFE_HREF.test(href) ? { kind: 'link', href, children: parseInline(text.slice(pos + 1, close)) } : { kind: 'text', text: text.slice(pos, end + 1) };
        return { node, end: end + 1 };
      }
    }
  }
  if (c === '*' || c === '_') {
    const table = c === '*' ? next.star : next.underscore;
    // Strong: `**x**` / `__x__`, no `*` (or `_`) inside.
    if (text[pos + 1] === c) {
      const close = table[pos + 2]!;
      if (close < text.length && close > pos + 2 && text[close + 1] === c) return { node: { kind: 'strong', children: parseInline(text.slice(pos + 2, close)) }, end: close + 2 };
    }
    // Emphasis: `*x*` / `_x_` not starting with a space; `_` only between word boundaries.
    const first = text[pos + 1];
    if (first !== undefined && first !== c && !isSpace(first) && (c === '*' || pos === rest || !isWord(text[pos - 1]))) {
      const close = table[pos + 1]!;
      if (close < text.length && (c === '*' || !isWord(text[close + 1]))) return { node: { kind: 'em', children: parseInline(text.slice(pos + 1, close)) }, end: close + 1 };
    }
  }
  return null;
}
