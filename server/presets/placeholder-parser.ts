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
import type { PlaceholderQuestion } from '../contracts/presets.contract.js';

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

/** Every placeholder in one string, in order of position. */
export function parseString(text: string): StringPlaceholder[] {
  if (!text.includes('[[')) return [];
  const found: StringPlaceholder[] = [];
  const markers = sceneMarkers(text);
  let from = 0;
  for (;;) {
    const start = text.indexOf('[[', from);
    if (start < 0) break;
    const end = closingIndex(text, start + 2);
    const parsed = end < 0 ? null : splitInner(text.slice(start + 2, end));
    if (!parsed) {
      from = start + 1;
      continue;
    }
    found.push({ start, raw: text.slice(start, end + 2), ...parsed, scene: 0 });
    from = end + 2;
  }
  // A marker written inside a placeholder's options is an option's text, not a scene change.
  const outside = markers.filter((m) => !found.some((p) => m.at >= p.start && m.at < p.start + p.raw.length));
  for (const p of found) p.scene = sceneAt(outside, p.start);
  return found;
}

/** Index of the `]]` closing a placeholder whose body starts at `from`, or -1. */
function closingIndex(text: string, from: number): number {
  const limit = Math.min(text.length, from + MAX_PLACEHOLDER_LENGTH);
  let depth = 0;
  for (let i = from; i < limit; i++) {
    const c = text[i];
    if (c === '[') depth++;
    else if (c === ']') {
      if (depth > 0) depth--;
      else if (text[i + 1] === ']') return i;
    }
  }
  return -1;
}

function splitInner(inner: string): { question: string; options: string[] } | null {
  const colon = inner.indexOf(':');
  if (colon < 0) return null;
  const question = inner.slice(0, colon).trim();
  if (!question || /[[\]|]/.test(question)) return null;
  const options = splitOptions(inner.slice(colon + 1))
    .map((o) => o.trim())
    .filter((o) => o !== '');
  return options.length ? { question, options } : null;
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

function sceneAt(markers: ReadonlyArray<{ at: number; scene: number }>, position: number): number {
  let scene = 0;
  for (const marker of markers) {
    if (marker.at >= position) break;
    scene = marker.scene;
  }
  return scene;
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
    byString.set(key, [...(byString.get(key) ?? []), p]);
  }
  for (const group of byString.values()) {
    const path = group[0]!.path;
    const parent = resolveParent(copy, path);
    const leaf = path[path.length - 1]!;
    let text = (parent as Record<string | number, unknown>)[leaf] as string;
    // Right to left, so earlier offsets stay valid while later ones are replaced.
    for (const p of [...group].sort((a, b) => b.start - a.start)) {
      const choice = chosen.get(p.index);
      if (choice === undefined) throw new Error(`no choice for placeholder ${p.index}`);
      text = text.slice(0, p.start) + choice + text.slice(p.start + p.raw.length);
    }
    (parent as Record<string | number, unknown>)[leaf] = text;
  }
  return copy;
}

function resolveParent(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  return node;
}
