/**
 * A literal `{{x}}` in text a template carries (an imported prompt) survives substitution when
 * written escaped (`\{{x}}`), while real placeholders beside it are still filled.
 */
import { describe, expect, it } from 'vitest';
import { escapePlaceholders, listPlaceholders, parseTemplate, substitutePlaceholders } from '../../../server/workflows/placeholders.js';

const fill = (text: string, values: Record<string, string | number> = {}) =>
  substitutePlaceholders(parseTemplate(JSON.stringify({ t: text }), 'test'), (name) => values[name], 'test') as { t: unknown };

describe('escaped placeholders', () => {
  it('turns escaped text back into exactly what was escaped', () => {
    for (const text of ['a {{x}} fox', '{{x}}', '{{ style }} and {{item.name}}', 'back\\slash \\{{x}} kept', 'no braces', '{{not a name}}', '{{a}}{{b}}']) {
      expect(fill(escapePlaceholders(text)).t).toBe(text);
    }
  });

  it('fills real placeholders next to escaped ones and lists only the real ones', () => {
    const template = `{{seed}} ${escapePlaceholders('{{seed}}')}`;
    expect(fill(template, { seed: 7 }).t).toBe('7 {{seed}}');
    expect(listPlaceholders({ t: template })).toEqual(['seed']);
    expect(fill('{{seed}}', { seed: 7 }).t).toBe(7);
  });

  it('still refuses an unknown placeholder written plainly', () => {
    expect(() => fill('a {{x}} fox')).toThrow(/unknown placeholder \{\{x\}\}/);
  });
});
