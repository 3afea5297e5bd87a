/**
 * The Run page's placeholder handling and the "Save as preset" dialog's model, without a browser:
 * the browser parses questions exactly as the server runs them, the selection helper writes the
 * syntax, and fixed/asked choices become the preset's parameters.
 */
import { describe, expect, it } from 'vitest';
import type { ManifestInput } from '../../../renderer/src/api/types.js';
import { isRunShortcut } from '../../../renderer/src/composables/useRunShortcut.js';
import { fillText, makePlaceholder, previewEachAnswer, questionFromSelection, questionsIn } from '../../../renderer/src/lib/placeholders.js';
import { answersProblem, draftFromForm, draftParams, presetIdFor } from '../../../renderer/src/lib/preset-draft.js';
import { isSettled, stepPercent } from '../../../renderer/src/lib/progress.js';
import { initialForm, toParams, withNewSeeds } from '../../../renderer/src/lib/run-form.js';
import { applyChoices, findPlaceholders } from '../../../server/contracts/placeholder-syntax.js';

const INPUTS = [
  { id: 'positive', type: 'text', label: 'Prompt', default: 'a fox' },
  { id: 'steps', type: 'int', label: 'Steps', default: 20, min: 1, max: 100 },
  { id: 'sampler', type: 'select', label: 'Sampler', options: ['euler', 'dpm'], default: 'euler' },
  { id: 'seed', type: 'seed', label: 'Seed', default: -1 },
  { id: 'image', type: 'image', label: 'Image' },
] as unknown as ManifestInput[];

describe('placeholders in the browser', () => {
  it('fills answers as the server does', () => {
    const text = 'a [[style:oil|water [color]]] [[animal:fox|owl]]';
    const server = applyChoices({ positive: text }, findPlaceholders({ positive: text }), new Map([[0, 'water [color]'], [1, 'owl']]));
    expect(fillText(text, ['water [color]', 'owl'])).toBe(server.positive);
    expect(fillText(text)).toBe('a oil fox');
    expect(fillText(text, ['not an option'])).toBe('a oil fox');
    expect(questionsIn(text).map((q) => q.question)).toEqual(['style', 'animal']);
  });

  it('writes the syntax from a selection, keeping the reserved characters out', () => {
    expect(questionFromSelection('an oil painting of a fox', 21, 24, 'Animal', ['owl', 'heron', 'owl'])).toBe('an oil painting of a [[Animal:fox|owl|heron]]');
    expect(makePlaceholder('Mood: [x]|y', ['a|b', 'c]]', 'd [e]'])).toBe('[[Mood x y:a b|c))|d [e]]]');
    // Whatever was typed, the parser reads back one question with the options written.
    for (const options of [['a|b', 'c]]'], [']'], ['[[x'], ['x]]]', 'y'], ['[a]', '[b|c]']]) {
      const placeholder = makePlaceholder('Q', options)!;
      const found = questionsIn(`before ${placeholder} after`);
      expect(found, placeholder).toHaveLength(1);
      expect(found[0]!.raw).toBe(placeholder);
    }
    expect(questionFromSelection('a fox', 1, 2, 'Q', [])).toBeNull();
    expect(makePlaceholder('  ', ['a'])).toBeNull();
  });

  it('previews the text for each answer of each question', () => {
    expect(previewEachAnswer('a [[s:oil|ink]] [[a:fox|owl]]').map((p) => p.text)).toEqual(['a oil fox', 'a ink fox', 'a oil fox', 'a oil owl']);
  });

  it('sends the chosen answers, never the [[…]], and Run ×N draws new seeds', () => {
    const state = initialForm(INPUTS);
    state.values.positive = 'a [[animal:fox|owl]]';
    state.answers = { positive: ['owl'] };
    state.seeds.seed = { randomize: false, value: 7, resolved: 7 };
    const params = toParams(INPUTS, state);
    expect(params).toMatchObject({ positive: 'a owl', seed: 7 });
    expect(withNewSeeds(INPUTS, params)).toMatchObject({ positive: 'a owl', seed: -1 });
  });
});

describe('the Save as preset model', () => {
  it('keeps fixed fields, turns asked ones into questions, and leaves an asked image out', () => {
    const state = initialForm(INPUTS);
    state.seeds.seed = { randomize: false, value: 99, resolved: 99 };
    const draft = draftFromForm('Fox', INPUTS, state);
    expect(draft.modes).toMatchObject({ steps: 'fixed', seed: 'fixed', image: 'asked' });
    expect(draftParams(INPUTS, state, draft)).toEqual({ positive: 'a fox', steps: 20, sampler: 'euler', seed: 99 });
    draft.modes.steps = 'asked';
    draft.answers.steps = '10, 30';
    draft.modes.sampler = 'asked';
    draft.modes.seed = 'asked';
    draft.texts.positive = 'a [[animal:fox|owl]]';
    expect(draftParams(INPUTS, state, draft)).toEqual({ positive: 'a [[animal:fox|owl]]', steps: '[[Steps:10|30]]', sampler: '[[Sampler:euler|dpm]]', seed: -1 });
  });

  it('says why asked numbers cannot be saved', () => {
    expect(answersProblem(INPUTS[1]!, '10, 2.5')).toMatch(/whole number/);
    expect(answersProblem(INPUTS[1]!, '0')).toMatch(/outside 1–100/);
    expect(answersProblem(INPUTS[1]!, '')).toMatch(/at least one/);
    expect(answersProblem(INPUTS[1]!, '5|6')).toBeNull();
  });

  it('picks a free id from the name', () => {
    expect(presetIdFor('Fox styles!', new Set())).toBe('fox-styles');
    expect(presetIdFor('Fox styles', new Set(['fox-styles', 'fox-styles-2']))).toBe('fox-styles-3');
    expect(presetIdFor('日本', new Set())).toBe('preset');
  });
});

describe('progress and keys', () => {
  it('gives the steps their own percent, and a finished job settles', () => {
    const p = { status: 'running', step: 6, total_steps: 10 } as never;
    expect(stepPercent(p)).toBe(60);
    expect(stepPercent({ status: 'completed', step: 10, total_steps: 10 } as never)).toBeNull();
    expect(isSettled({ status: 'completed' } as never)).toBe(true);
    expect(isSettled(p)).toBe(false);
  });

  it('knows the run shortcut', () => {
    const key = { key: 'Enter', ctrlKey: false, metaKey: false, altKey: false, shiftKey: false };
    expect(isRunShortcut({ ...key, ctrlKey: true })).toBe(true);
    expect(isRunShortcut({ ...key, metaKey: true })).toBe(true);
    expect(isRunShortcut(key)).toBe(false);
    expect(isRunShortcut({ ...key, ctrlKey: true, shiftKey: true })).toBe(false);
  });
});
