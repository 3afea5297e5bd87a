/**
 * The "Save as preset" dialog's model: for each form input, whether the preset keeps it fixed or
 * asks it at every run, and the preset parameters that choice writes. An asked field becomes a
 * placeholder question (`[[Steps:20|30]]`) in its parameter; the server's preset run puts the
 * answer in (numbers and booleans as text, which the workflow's parameter rules read). An asked
 * seed is a new random one each run; an asked image is left out, so the run asks for one.
 */
import type { ManifestInput } from '../api/types.js';
import { makePlaceholder, splitAnswers } from './placeholders.js';
import type { FieldValue, FormState } from './run-form.js';

export type FieldMode = 'fixed' | 'asked';

export interface PresetDraft {
  name: string;
  description: string;
  /** Per text input: its text, placeholder questions included. */
  texts: Record<string, string>;
  modes: Record<string, FieldMode>;
  /** Per asked number input: its answers as typed (`20, 30, 40`). */
  answers: Record<string, string>;
}

/** Which inputs a preset can ask at every run (a text asks through the questions written into it; LoRAs stay fixed). */
export function canAsk(input: ManifestInput): boolean {
  return input.type !== 'text' && input.type !== 'loras';
}

/** The dialog's starting point from the Run page's form: everything fixed, a random seed stays random. */
export function draftFromForm(name: string, inputs: readonly ManifestInput[], state: FormState): PresetDraft {
  const draft: PresetDraft = { name, description: '', texts: {}, modes: {}, answers: {} };
  for (const input of inputs) {
    const value = state.values[input.id];
    if (input.type === 'text') draft.texts[input.id] = typeof value === 'string' ? value : '';
    draft.modes[input.id] = input.type === 'seed' && (state.seeds[input.id]?.randomize ?? true) ? 'asked' : input.type === 'image' && !value ? 'asked' : 'fixed';
    if (input.type === 'int' || input.type === 'float') draft.answers[input.id] = String(value ?? '');
  }
  return draft;
}

const labelOf = (input: ManifestInput): string => input.label ?? input.id;

/** The answers an asked input offers, its current value first. */
export function askedOptions(input: ManifestInput, value: FieldValue, typed = ''): string[] {
  switch (input.type) {
    case 'select':
      return [...new Set([String(value ?? ''), ...input.options].filter((o) => o !== ''))];
    case 'bool':
      return value ? ['true', 'false'] : ['false', 'true'];
    case 'int':
    case 'float':
      return splitAnswers(typed);
    default:
      return [];
  }
}

/** Why an asked number input's answers cannot be saved (null when they can). */
export function answersProblem(input: ManifestInput, typed: string): string | null {
  if (input.type !== 'int' && input.type !== 'float') return null;
  const answers = splitAnswers(typed);
  if (!answers.length) return `${labelOf(input)}: give at least one answer`;
  for (const a of answers) {
    const n = Number(a);
    if (!Number.isFinite(n) || (input.type === 'int' && !Number.isInteger(n))) return `${labelOf(input)}: “${a}” is not ${input.type === 'int' ? 'a whole number' : 'a number'}`;
    if ((input.min !== undefined && n < input.min) || (input.max !== undefined && n > input.max)) return `${labelOf(input)}: ${a} is outside ${input.min ?? '…'}–${input.max ?? '…'}`;
  }
  return null;
}

/** The preset's `workflow.params` from the form and the dialog's choices. */
export function draftParams(inputs: readonly ManifestInput[], state: FormState, draft: PresetDraft): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const input of inputs) {
    const asked = draft.modes[input.id] === 'asked';
    const value = state.values[input.id];
    if (input.type === 'text') {
      params[input.id] = draft.texts[input.id] ?? '';
    } else if (input.type === 'seed') {
      const seed = state.seeds[input.id];
      params[input.id] = asked || !seed ? -1 : Math.max(0, Math.round(seed.value));
    } else if (input.type === 'image') {
      if (!asked && typeof value === 'string' && value) params[input.id] = value;
    } else if (asked && canAsk(input)) {
      const placeholder = makePlaceholder(labelOf(input), askedOptions(input, value ?? null, draft.answers[input.id]));
      if (placeholder) params[input.id] = placeholder;
      else if (value !== null && value !== undefined) params[input.id] = value;
    } else if (value !== null && value !== undefined) {
      params[input.id] = value;
    }
  }
  return params;
}

/** A free preset id from a name: letters, digits, `-` and `_`, with `-2`, `-3`… when taken. */
export function presetIdFor(name: string, taken: ReadonlySet<string>): string {
  const base =
    name
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .toLowerCase()
      .slice(0, 100) || 'preset';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
