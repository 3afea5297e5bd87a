/**
 * Placeholder questions in preset parameters: `[[question:option1|option2]]` inside any string,
 * at any depth of the parameters (arrays and objects too).
 *
 * Rules (README "Presets"):
 * - The placeholder ends at the first `]]` that is not inside a nested `[...]`, so options may
 *   hold brackets (`[[style:a [b]|c]]`) and even `[[...]]` text of their own.
 * - The question is the text before the first `:`; the options are the rest split on `|` outside
 *   nested brackets, trimmed, empty ones dropped. Colons inside options are plain text.
 * - Text that does not fit (no `:`, no question, no option, a bracket in the question, no closing
 *   `]]` within MAX_PLACEHOLDER_LENGTH) stays text; scanning goes on one character further, so a
 *   stray `[` before a real placeholder does not hide it.
 * - `scene` is the number of the last scene marker (`Scene 2:` or `[scene 2]`, any case) before
 *   the placeholder in the same string, 0 when there is none.
 */
import type { PlaceholderQuestion } from './presets.contract.js';

/** A question plus where it sits, so answers can be put back in place. */
export interface LocatedPlaceholder extends PlaceholderQuestion {
  /** Keys from the parameters object down to the string holding it (the first is `field`). */
  path: Array<string | number>;
  /** Offset of `raw` inside that string. */
  start: number;
}

/** A placeholder found in one string (before numbering). */
export interface StringPlaceholder {
  start: number;
  raw: string;
  question: string;
  options: string[];
  scene: number;
}

/**
 * Longest placeholder looked at: bounds the work on text full of unclosed `[[` (each start scans
 * at most this far), far above any real question with its options.
 */
export const MAX_PLACEHOLDER_LENGTH = 4096;

const SCENE_MARKER = /\[\s*scene\s*(\d+)\s*\]|\bscene\s*(\d+)\s*:/gi;

/**
 * Every placeholder in one string, in order of position. Linear in the length of the text (a
 * prompt may be megabytes, and this runs on the request's thread): where each `[[` would close is
 * found for all of them in one pass, the question and option checks read positions found by
 * pointers that only move forward, and scene markers are matched to placeholders by merging.
 */
export function parseString(text: string): StringPlaceholder[] {
  if (!text.includes('[[')) return [];
  const { starts, ends } = closingIndexes(text);
  const found: StringPlaceholder[] = [];
  const next = forwardFinders(text);
  let from = 0;
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k]!;
    const end = ends[k]!;
    if (start < from) continue;
    const parsed = end < 0 ? null : checkInner(text, start + 2, end, next);
    if (!parsed) {
      from = start + 1;
      continue;
    }
    found.push({ start, raw: text.slice(start, end + 2), ...parsed, scene: 0 });
    from = end + 2;
  }
  assignScenes(found, sceneMarkers(text));
  return found;
}

/**
 * For every `[[` (overlapping ones too), in order: its start and the index of the `]]` closing it
 * (`ends`, -1 when none does). A placeholder whose body starts at `p` closes at the first `]]` where every `[` opened
 * since `p` has been closed. With one stack of open `[` over the whole text that is the first `]]`
 * whose stack top lies before `p`: the starts still waiting sit on a stack in the order they
 * opened, and each `]]` answers those above the top, so each start is pushed and popped once.
 */
function closingIndexes(text: string): { starts: number[]; ends: number[] } {
  const open: number[] = [];
  /** Indexes (into `starts`) of the starts still waiting for their `]]`, in opening order. */
  const waiting: number[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === RIGHT && text.charCodeAt(i + 1) === RIGHT) {
      const top = open.length ? open[open.length - 1]! : -1;
      while (waiting.length && starts[waiting[waiting.length - 1]!]! + 2 > top) {
        const k = waiting.pop()!;
        // Within MAX_PLACEHOLDER_LENGTH of its body, or it stays text.
        if (i - (starts[k]! + 2) < MAX_PLACEHOLDER_LENGTH) ends[k] = i;
      }
    }
    if (c === LEFT) {
      open.push(i);
      if (i > 0 && text.charCodeAt(i - 1) === LEFT) {
        // A `[[` at i - 1: its body starts at i + 1.
        waiting.push(starts.length);
        starts.push(i - 1);
        ends.push(-1);
      }
    } else if (c === RIGHT) open.pop();
  }
  return { starts, ends };
}

const LEFT = 0x5b; // [
const RIGHT = 0x5d; // ]
const COLON = 0x3a;
const PIPE = 0x7c;

/** "The first index at or after `from` where `test` holds", each with a pointer that only moves forward. */
type Finder = (from: number) => number;

function forwardFinder(text: string, test: (c: string) => boolean): Finder {
  let at = 0;
  let found = -1;
  return (from) => {
    if (found >= from) return found;
    at = Math.max(at, from);
    while (at < text.length && !test(text[at]!)) at++;
    found = at;
    return at;
  };
}

function forwardFinders(text: string): { colon: Finder; notSpace: Finder; bracketOrPipe: Finder; optionText: Finder } {
  return {
    colon: forwardFinder(text, (c) => c.charCodeAt(0) === COLON),
    notSpace: forwardFinder(text, (c) => !/\s/.test(c)),
    bracketOrPipe: forwardFinder(text, (c) => c === '[' || c === ']' || c === '|'),
    // An option has text when it holds something besides spaces and the `|` between options.
    optionText: forwardFinder(text, (c) => c.charCodeAt(0) !== PIPE && !/\s/.test(c)),
  };
}

/**
 * The question and options of the body `text[from, end)`, or null when it is not a placeholder
 * (see the rules above). Placeholder starts are checked in increasing order, so the finders'
 * positions only move forward; the body is split only when it is a placeholder.
 */
function checkInner(text: string, from: number, end: number, next: ReturnType<typeof forwardFinders>): { question: string; options: string[] } | null {
  const colon = next.colon(from);
  if (colon >= end) return null;
  if (next.notSpace(from) >= colon || next.bracketOrPipe(from) < colon) return null;
  if (next.optionText(colon + 1) >= end) return null;
  const question = text.slice(from, colon).trim();
  const options = splitOptions(text.slice(colon + 1, end))
    .map((o) => o.trim())
    .filter((o) => o !== '');
  return { question, options };
}

/** Split on `|` outside nested brackets. */
function splitOptions(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let last = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '[') depth++;
    else if (c === ']' && depth > 0) depth--;
    else if (c === '|' && depth === 0) {
      parts.push(body.slice(last, i));
      last = i + 1;
    }
  }
  parts.push(body.slice(last));
  return parts;
}

function sceneMarkers(text: string): Array<{ at: number; scene: number }> {
  const markers: Array<{ at: number; scene: number }> = [];
  for (const match of text.matchAll(SCENE_MARKER)) {
    const scene = Number(match[1] ?? match[2]);
    if (Number.isSafeInteger(scene)) markers.push({ at: match.index, scene });
  }
  return markers;
}

/**
 * Each placeholder's scene: the last marker before it, not counting markers written inside a
 * placeholder's options (those are option text). Both lists are in position order: one merge.
 */
function assignScenes(found: StringPlaceholder[], markers: ReadonlyArray<{ at: number; scene: number }>): void {
  let scene = 0;
  let m = 0;
  for (const p of found) {
    // Markers between the previous placeholder's end and this one's start are outside every placeholder.
    for (; m < markers.length && markers[m]!.at < p.start; m++) scene = markers[m]!.scene;
    p.scene = scene;
    // Markers inside this placeholder are option text: skipped.
    while (m < markers.length && markers[m]!.at < p.start + p.raw.length) m++;
  }
}

/**
 * Every placeholder in a preset's parameters, numbered from 0: parameters in their key order,
 * nested values depth first (array items in order, object keys in order), then by position.
 */
export function findPlaceholders(params: Record<string, unknown>): LocatedPlaceholder[] {
  const found: LocatedPlaceholder[] = [];
  const visit = (value: unknown, path: Array<string | number>): void => {
    if (typeof value === 'string') {
      for (const p of parseString(value)) {
        found.push({ index: found.length, scene: p.scene, question: p.question, options: p.options, raw: p.raw, field: String(path[0]), path, start: p.start });
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, [...path, i]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, [...path, key]);
    }
  };
  for (const [key, value] of Object.entries(params)) visit(value, [key]);
  return found;
}

/** The API view of located placeholders. */
export function toQuestions(located: readonly LocatedPlaceholder[]): PlaceholderQuestion[] {
  return located.map(({ index, scene, question, options, raw, field }) => ({ index, scene, question, options, raw, field }));
}

/**
 * A deep copy of `params` with each placeholder replaced by `chosen[index]`. Every placeholder
 * must have a choice (the caller checks answers first).
 */
export function applyChoices(params: Record<string, unknown>, located: readonly LocatedPlaceholder[], chosen: ReadonlyMap<number, string>): Record<string, unknown> {
  const copy = structuredClone(params);
  const byString = new Map<string, LocatedPlaceholder[]>();
  for (const p of located) {
    const key = JSON.stringify(p.path);
    const group = byString.get(key);
    if (group) group.push(p);
    else byString.set(key, [p]);
  }
  for (const group of byString.values()) {
    const path = group[0]!.path;
    const parent = resolveParent(copy, path);
    const leaf = path[path.length - 1]!;
    const text = (parent as Record<string | number, unknown>)[leaf] as string;
    // One pass left to right, joined once: thousands of placeholders in one prompt stay linear.
    const pieces: string[] = [];
    let at = 0;
    for (const p of [...group].sort((a, b) => a.start - b.start)) {
      const choice = chosen.get(p.index);
      if (choice === undefined) throw new Error(`no choice for placeholder ${p.index}`);
      pieces.push(text.slice(at, p.start), choice);
      at = p.start + p.raw.length;
    }
    pieces.push(text.slice(at));
    (parent as Record<string | number, unknown>)[leaf] = pieces.join('');
  }
  return copy;
}

function resolveParent(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  return node;
}
