/** The history's and the job page's prompt line: which parameter is the prompt, and its first words. */
import { describe, expect, it } from 'vitest';
import { firstWords, promptOf } from '../../../renderer/src/lib/job-facts.js';

describe('the prompt of a job', () => {
  it('is the parameter named like a prompt, never the negative one', () => {
    expect(promptOf({ params: { negative: 'blurry, low quality', positive: 'a fox in the snow', steps: 20 } })).toBe('a fox in the snow');
    expect(promptOf({ params: { negative_prompt: 'blurry', prompt: ' an owl ' } })).toBe('an owl');
    expect(promptOf({ params: { image: 'in.png', description: 'a cat on a chair' } })).toBe('a cat on a chair');
    expect(promptOf({ params: { image: 'in.png', _existing_input_image: 'x y.png', steps: 3 } })).toBeNull();
  });
  it('is cut to its first words', () => {
    expect(firstWords('one two three', 2)).toBe('one two…');
    expect(firstWords('  one   two ', 2)).toBe('one two');
  });
});
