/**
 * `{{variable}}` placeholders in workflow templates, substituted type-safely.
 *
 * The template text is parsed as JSON first (a placeholder written bare, `"steps": {{steps}}`,
 * is quoted before parsing) and the substitution walks the parsed tree: a string that is exactly
 * one placeholder becomes the typed value (number, boolean or string); a placeholder inside a
 * longer string is spliced in as text. The graph is serialized again with `JSON.stringify`, so
 * a parameter's quotes, backslashes or newlines can never break the JSON or add keys, and text
 * that came from a parameter is never scanned for placeholders again.
 *
 * A backslash right before a placeholder makes it text: `\{{x}}` becomes a literal `{{x}}` (the
 * import writes user text this way, so a prompt that happens to contain `{{x}}` is kept as written
 * instead of being refused as an unknown placeholder).
 */
import { templateError } from './workflow-errors.js';

/** What a placeholder may turn into. Lists are excluded: the engine reads a 2-array as a link. */
export type PlaceholderValue = string | number | boolean;

/** Resolves a placeholder name; `undefined` means the name is unknown. */
export type PlaceholderLookup = (name: string) => PlaceholderValue | undefined;

const NAME = '[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?';
const PLACEHOLDER = new RegExp(`(\\\\?)\\{\\{\\s*(${NAME})\\s*\\}\\}`, 'g');
const BARE = new RegExp(`\\{\\{\\s*${NAME}\\s*\\}\\}`, 'g');
const WHOLE = new RegExp(`^\\{\\{\\s*(${NAME})\\s*\\}\\}$`);
const ANY = new RegExp(`\\{\\{\\s*${NAME}\\s*\\}\\}`);

/** Parse template text into a JSON tree, quoting bare placeholders that sit outside strings. */
export function parseTemplate(text: string, where: string): unknown {
  try {
    return JSON.parse(quoteBarePlaceholders(text));
  } catch (error) {
    throw templateError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Return a copy of `tree` with every placeholder replaced through `lookup`. */
export function substitutePlaceholders(tree: unknown, lookup: PlaceholderLookup, where: string): unknown {
  const resolve = (name: string): PlaceholderValue => {
    const value = lookup(name);
    if (value === undefined) throw templateError(`${where}: unknown placeholder {{${name}}}`);
    return value;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return substituteString(value, resolve);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        if (ANY.test(key)) throw templateError(`${where}: placeholders are not allowed in keys ("${key}")`);
        out[key] = walk(child);
      }
      return out;
    }
    return value;
  };
  return walk(tree);
}

/** The placeholder names a template tree uses, in first-seen order. */
export function listPlaceholders(tree: unknown): string[] {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(PLACEHOLDER)) if (!match[1]) names.add(match[2]!);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(tree);
  return [...names];
}

function substituteString(text: string, resolve: (name: string) => PlaceholderValue): unknown {
  const whole = WHOLE.exec(text);
  if (whole) return resolve(whole[1]!);
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (match: string, escape: string, name: string) => (escape ? match.slice(1) : String(resolve(name))));
}

/** Template text → the text it stands for when it holds no real placeholder (escapes removed). */
export function literalText(text: string): string {
  return text.includes('{{') ? text.replace(PLACEHOLDER, (match: string, escape: string) => (escape ? match.slice(1) : match)) : text;
}

/** True when `text` is exactly one placeholder; its name. */
export function wholePlaceholder(text: string): string | undefined {
  return WHOLE.exec(text)?.[1];
}

/** Text → template text that substitutes back to exactly `text` (every `{{name}}` in it escaped). */
export function escapePlaceholders(text: string): string {
  return text.includes('{{') ? text.replace(BARE, '\\$&') : text;
}

/** `{"steps": {{steps}}}` → `{"steps": "{{steps}}"}`; text inside JSON strings is left alone. */
function quoteBarePlaceholders(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if (ch === '{' && text[i + 1] === '{') {
      const end = text.indexOf('}}', i + 2);
      const candidate = end === -1 ? '' : text.slice(i, end + 2);
      if (WHOLE.test(candidate)) {
        out += JSON.stringify(candidate);
        i = end + 1;
        continue;
      }
    }
    out += ch;
  }
  return out;
}
