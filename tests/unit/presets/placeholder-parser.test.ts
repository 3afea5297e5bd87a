/**
 * The placeholder parser on tricky text: nesting, pipes and colons in options, several per
 * field, unicode, unterminated `[[`, scene markers, and answers put back in place.
 */
import { describe, expect, it } from 'vitest';
import { applyChoices, findPlaceholders, MAX_PLACEHOLDER_LENGTH, parseString, toQuestions } from '../../../server/contracts/placeholder-syntax.js';

const one = (text: string) => {
  const found = parseString(text);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('parseString', () => {
  it('reads the question, the options and the raw text', () => {
    expect(parseString('a [[Hair color:red|blue]] cat')).toEqual([
      { start: 2, raw: '[[Hair color:red|blue]]', question: 'Hair color', options: ['red', 'blue'], scene: 0 },
    ]);
  });

  it('trims around the question and options and drops empty options', () => {
    const p = one('[[  Mood : happy |  | sad  |]]');
    expect(p.question).toBe('Mood');
    expect(p.options).toEqual(['happy', 'sad']);
  });

  it('keeps colons inside options (only the first colon splits)', () => {
    const p = one('[[Style:(masterpiece:1.2)|photo: 35mm, f/1.8]]');
    expect(p.question).toBe('Style');
    expect(p.options).toEqual(['(masterpiece:1.2)', 'photo: 35mm, f/1.8']);
  });

  it('keeps nested brackets and the pipes inside them within one option', () => {
    const p = one('x [[Look:a [b|c] d|e [f]]] y');
    expect(p.raw).toBe('[[Look:a [b|c] d|e [f]]]');
    expect(p.options).toEqual(['a [b|c] d', 'e [f]']);
  });

  it('reads [[...]] text inside an option as part of that option', () => {
    const p = one('[[Outer:x|[[inner:y|z]]]] tail');
    expect(p.raw).toBe('[[Outer:x|[[inner:y|z]]]]');
    expect(p.options).toEqual(['x', '[[inner:y|z]]']);
  });

  it('finds several placeholders in one string, in order of position', () => {
    const found = parseString('[[A:1|2]] and [[B:3|4]][[C:5]]');
    expect(found.map((p) => [p.question, p.start])).toEqual([
      ['A', 0],
      ['B', 14],
      ['C', 23],
    ]);
  });

  it('handles unicode in questions and options (offsets in UTF-16 units)', () => {
    const text = '🦊 [[Farbe 🎨:grün|blau|日本語]] ✓';
    const p = one(text);
    expect(p.question).toBe('Farbe 🎨');
    expect(p.options).toEqual(['grün', 'blau', '日本語']);
    expect(text.slice(p.start, p.start + p.raw.length)).toBe(p.raw);
  });

  it('leaves an unterminated [[ as text and still finds later placeholders', () => {
    expect(parseString('open [[Q:a|b and never closed')).toEqual([]);
    const found = parseString('broken [[ here, then [[Q:a|b]]');
    expect(found.map((p) => p.raw)).toEqual(['[[Q:a|b]]']);
    expect(parseString('[[')).toEqual([]);
    expect(parseString('[[Q:a|b]')).toEqual([]);
  });

  it('leaves text that is not a question alone', () => {
    expect(parseString('[[no colon here]]')).toEqual([]);
    expect(parseString('[[:no question|x]]')).toEqual([]);
    expect(parseString('[[Q:]]')).toEqual([]);
    expect(parseString('[[Q: | |]]')).toEqual([]);
    expect(parseString('[single:bracket|x]')).toEqual([]);
    expect(parseString('a ]] b [[')).toEqual([]);
  });

  it('a stray [ right before a placeholder does not hide it', () => {
    const p = one('[[[Q:a|b]]]');
    expect(p.raw).toBe('[[Q:a|b]]');
    expect(p.start).toBe(1);
  });

  it('gives up on an unclosed [[ after MAX_PLACEHOLDER_LENGTH characters (bounded work)', () => {
    const long = `[[Q:${'x'.repeat(MAX_PLACEHOLDER_LENGTH)}]]`;
    expect(parseString(long)).toEqual([]);
    const text = '[['.repeat(3_000) + '[[Q:a|b]]';
    const found = parseString(text);
    expect(found.at(-1)?.raw).toBe('[[Q:a|b]]');
  });

  it('numbers scenes from markers before the placeholder (0 when none)', () => {
    const text = '[[Light:day|night]] Scene 1: a fox [[Fur:red|white]]\nScene 2: a hare [[Pose:sit|run]] [scene 7] [[End:x|y]]';
    expect(parseString(text).map((p) => [p.question, p.scene])).toEqual([
      ['Light', 0],
      ['Fur', 1],
      ['Pose', 2],
      ['End', 7],
    ]);
    expect(parseString('SCENE 3: [[Q:a|b]]')[0]!.scene).toBe(3);
  });

  it('ignores a scene marker written inside a placeholder', () => {
    const found = parseString('Scene 1: [[Q:Scene 9: x|y]] [[R:a|b]]');
    expect(found.map((p) => p.scene)).toEqual([1, 1]);
  });
});

describe('findPlaceholders', () => {
  const params = {
    positive_prompt: 'Scene 1: a [[Animal:fox|cat]] in [[Place:snow|sand]]',
    steps: 20,
    negative: 'no placeholders',
    loras: [{ name: 'x.safetensors', note: '[[Strength note:low|high]]' }, 'plain', '[[Extra:a|b]]'],
    nested: { deep: { text: '[[Deep:1|2]]' } },
    flag: true,
    nothing: null,
  };

  it('numbers from 0 in parameter order, nested values depth first, then position', () => {
    expect(toQuestions(findPlaceholders(params))).toEqual([
      { index: 0, scene: 1, question: 'Animal', options: ['fox', 'cat'], raw: '[[Animal:fox|cat]]', field: 'positive_prompt' },
      { index: 1, scene: 1, question: 'Place', options: ['snow', 'sand'], raw: '[[Place:snow|sand]]', field: 'positive_prompt' },
      { index: 2, scene: 0, question: 'Strength note', options: ['low', 'high'], raw: '[[Strength note:low|high]]', field: 'loras' },
      { index: 3, scene: 0, question: 'Extra', options: ['a', 'b'], raw: '[[Extra:a|b]]', field: 'loras' },
      { index: 4, scene: 0, question: 'Deep', options: ['1', '2'], raw: '[[Deep:1|2]]', field: 'nested' },
    ]);
  });

  it('returns nothing for parameters without placeholders', () => {
    expect(findPlaceholders({ a: 'x', b: [1, 2], c: {} })).toEqual([]);
  });

  it('applies choices everywhere without touching the original', () => {
    const located = findPlaceholders(params);
    const chosen = new Map([
      [0, 'cat'],
      [1, 'sand'],
      [2, 'high'],
      [3, 'b'],
      [4, '2'],
    ]);
    const applied = applyChoices(params, located, chosen);
    expect(applied).toEqual({
      ...params,
      positive_prompt: 'Scene 1: a cat in sand',
      loras: [{ name: 'x.safetensors', note: 'high' }, 'plain', 'b'],
      nested: { deep: { text: '2' } },
    });
    expect(params.positive_prompt).toContain('[[Animal');
  });

  it('replaces repeated identical placeholders each with its own answer', () => {
    const p = { text: '[[Q:a|b]] [[Q:a|b]]' };
    const located = findPlaceholders(p);
    expect(located).toHaveLength(2);
    expect(applyChoices(p, located, new Map([[0, 'a'], [1, 'b']]))).toEqual({ text: 'a b' });
  });

  it('an option that looks like a placeholder is inserted as text, not parsed again', () => {
    const p = { text: '[[Outer:x|[[inner:y|z]]]]' };
    const located = findPlaceholders(p);
    expect(applyChoices(p, located, new Map([[0, '[[inner:y|z]]']]))).toEqual({ text: '[[inner:y|z]]' });
  });
});

describe('parser invariants on random bracket soup', () => {
  // A small seeded generator: the same 2 000 strings on every run, so a failure reproduces.
  let state = 0x2f6b_1d3a;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return state / 2 ** 32;
  };
  const ALPHABET = ['[', '[[', ']', ']]', ':', '|', 'a', 'Q', ' ', 'é', '🦊', 'Scene 2:', '\n'];
  const soup = () => Array.from({ length: Math.floor(next() * 40) }, () => ALPHABET[Math.floor(next() * ALPHABET.length)]).join('');

  it('never throws; each raw is the text at its offset, well-formed, and in order', () => {
    for (let n = 0; n < 2_000; n++) {
      const text = soup();
      const found = parseString(text);
      let end = 0;
      for (const p of found) {
        expect(text.slice(p.start, p.start + p.raw.length)).toBe(p.raw);
        expect(p.raw.startsWith('[[') && p.raw.endsWith(']]')).toBe(true);
        expect(p.start).toBeGreaterThanOrEqual(end);
        expect(p.options.length).toBeGreaterThan(0);
        expect(p.question).not.toBe('');
        end = p.start + p.raw.length;
      }
    }
  });

  it('answering each placeholder with its own raw text gives the original string back', () => {
    for (let n = 0; n < 2_000; n++) {
      const params = { text: soup() };
      const located = findPlaceholders(params);
      const chosen = new Map(located.map((p) => [p.index, p.raw]));
      expect(applyChoices(params, located, chosen)).toEqual(params);
    }
  });
});

/**
 * Event-loop stalls: a prompt may be megabytes (the body limit is 5 MB) and parsing runs on the
 * request's thread. Each shape here made the old parser quadratic (minutes at this size); a linear
 * one answers in about a second on a busy machine. The failing mode of a quadratic parser is this
 * test timing out; nothing here measures time.
 */
describe('hostile prompts of 5 MB', () => {
  const SIZE = 5 * 1024 * 1024;

  it('reads nothing from 5 MB of unclosed [[ after a question; stray starts do not hide a real placeholder', () => {
    expect(parseString(`[[a:${'['.repeat(SIZE)}`)).toEqual([]);
    const tail = parseString(`${'[[x '.repeat(SIZE / 16)}[[Mood:calm|wild]] scene 2: end`);
    expect(tail.map((p) => [p.question, p.options, p.scene])).toEqual([['Mood', ['calm', 'wild'], 0]]);
  });

  it('finds 200 000 placeholders between scene markers and puts 200 000 answers back', () => {
    const unit = 'scene 7: [[Q:a|b]] ';
    const text = unit.repeat(200_000);
    const found = findPlaceholders({ prompt: text });
    expect(found).toHaveLength(200_000);
    expect(found.every((p) => p.scene === 7 && p.options.length === 2)).toBe(true);
    expect(found[199_999]!.start).toBe(199_999 * unit.length + 'scene 7: '.length);
    const answered = applyChoices({ prompt: text }, found, new Map(found.map((p) => [p.index, 'b'])));
    expect(answered.prompt).toBe('scene 7: b '.repeat(200_000));
  });
});
