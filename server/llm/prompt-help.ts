/**
 * "Improve prompt" on the Run page: the chat sent to the local LLM. The system prompt holds the
 * model to the user's subject (image models follow the prompt literally, so an assistant that
 * "improves" a cat into a tiger has failed) and asks for the prompt alone, no preface, so the
 * answer can stream straight into the field. Pure, so it is unit-tested.
 */

const POSITIVE = [
  'You rewrite prompts for an image and video generation model.',
  "Keep the user's subject exactly: the same people, animals, objects, actions, count and setting they named. Never replace or drop them, never add new subjects.",
  'Make it concrete and visual: appearance, setting, lighting, composition, camera or art style, mood, in the order that matters most.',
  "Keep the user's language and any names, styles or trigger words they wrote.",
  'Answer with the improved prompt only: one paragraph, at most 80 words, no quotes, no preface, no explanation.',
].join(' ');

const NEGATIVE = [
  'You rewrite negative prompts for an image and video generation model: a comma-separated list of what the image must not show.',
  "Keep every item the user wrote and add the usual defects to avoid that fit it (blur, artifacts, distorted anatomy, extra limbs, text, watermark), never the user's subject itself.",
  'Answer with the list only: no quotes, no preface, no explanation.',
].join(' ');

/** The chat messages for improving `text`. */
export function promptHelpMessages(text: string, kind: 'positive' | 'negative'): Array<{ role: 'system' | 'user'; content: string }> {
  return [
    { role: 'system', content: kind === 'negative' ? NEGATIVE : POSITIVE },
    { role: 'user', content: text },
  ];
}
