/**
 * Placeholder questions (`[[question:a|b]]`) in the browser: the same parser the server runs a
 * preset with (server/contracts/placeholder-syntax.ts), so what the Run page and the "Save as
 * preset" dialog show is what a run will ask and fill.
 */
import { parseString, type StringPlaceholder } from '../../../server/contracts/placeholder-syntax.js';

/** The placeholder questions in one text, in order. */
export function questionsIn(text: string): StringPlaceholder[] {
  return parseString(text);
}

/** The text with its n-th placeholder replaced by `answers[n]` (its first option when unanswered or not an option). */
export function fillText(text: string, answers: readonly (string | undefined)[] = []): string {
  const found = parseString(text);
  if (!found.length) return text;
  const pieces: string[] = [];
  let at = 0;
  found.forEach((p, n) => {
    const answer = answers[n];
    pieces.push(text.slice(at, p.start), answer !== undefined && p.options.includes(answer) ? answer : (p.options[0] ?? ''));
    at = p.start + p.raw.length;
  });
  pieces.push(text.slice(at));
  return pieces.join('');
}

/** Characters a question cannot hold (the parser would not read it as one). */
const QUESTION_FORBIDDEN = /[[\]|:]/g;

/** Whether every `]` in the text closes a `[` before it, and every `[` is closed. */
function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    if (c === '[') depth++;
    else if (c === ']' && --depth < 0) return false;
  }
  return depth === 0;
}

/** An option as the parser will read it back: no `|` (it splits options), brackets only when they pair up. */
function cleanOption(option: string): string {
  const text = option.replace(/\|/g, ' ').replace(/\s+/g, ' ').trim();
  return balanced(text) ? text : text.replace(/\[/g, '(').replace(/\]/g, ')');
}

/**
 * The placeholder text for a question and its options: the question loses the characters the
 * syntax reserves, an option loses `|` and its brackets turn round when they do not pair up
 * (a stray `]` would end the placeholder early), empty and repeated options are dropped. Null
 * when there is no question or no option left.
 */
export function makePlaceholder(question: string, options: readonly string[]): string | null {
  const q = question.replace(QUESTION_FORBIDDEN, ' ').replace(/\s+/g, ' ').trim();
  const opts = [...new Set(options.map(cleanOption).filter((o) => o !== ''))];
  if (!q || !opts.length) return null;
  return `[[${q}:${opts.join('|')}]]`;
}

/** Split what a person types as a list of answers: `|`, commas or new lines between them. */
export function splitAnswers(text: string): string[] {
  return text
    .split(/[|,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Replace `text[start, end)` with a placeholder asking `question`, the selected words being its first answer. */
export function questionFromSelection(text: string, start: number, end: number, question: string, otherAnswers: readonly string[]): string | null {
  const selected = text.slice(start, end).trim();
  if (!selected) return null;
  const placeholder = makePlaceholder(question, [selected, ...otherAnswers]);
  if (!placeholder) return null;
  return text.slice(0, start) + placeholder + text.slice(end);
}

/** One line of the preview: a question's answer and the text it gives (the other questions at their first answer). */
export interface FilledPreview {
  question: string;
  answer: string;
  text: string;
}

/** For every question in the text and each of its answers, the filled text. */
export function previewEachAnswer(text: string): FilledPreview[] {
  const found = parseString(text);
  const out: FilledPreview[] = [];
  found.forEach((p, n) => {
    for (const option of p.options) {
      const answers: string[] = [];
      answers[n] = option;
      out.push({ question: p.question, answer: option, text: fillText(text, answers) });
    }
  });
  return out;
}
