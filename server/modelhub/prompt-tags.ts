/**
 * Resource syntax inside prompts: A1111 extra-network tags `<kind:name:args>`
 * (`lora`, `lyco`, `hypernet`, …) and ComfyUI embedding words `embedding:name`. The tags are
 * resource references, not prompt text: `cleanPrompt` strips every one of them and tidies the
 * separators left behind. Embeddings stay in the text (they are words of the prompt).
 */

/** A resource named in a prompt. */
export interface PromptTag {
  /** `lora`, `lyco`, `hypernet`, … or `embedding`. */
  kind: string;
  name: string;
  weight: number;
}

const NETWORK_TAG = /<([A-Za-z0-9_]+):([^<>]+)>/g;
// `embedding:name` with an optional `:weight` when written as `(embedding:name:1.2)`.
const EMBEDDING = /\bembedding:([^\s,()[\]<>:]+)(?::(-?\d+(?:\.\d+)?))?/gi;

/** The extra-network tags of `prompt` with their first multiplier (default 1). */
export function networkTags(prompt: string): PromptTag[] {
  const out: PromptTag[] = [];
  for (const match of prompt.matchAll(NETWORK_TAG)) {
    const [name, ...args] = match[2]!.split(':').map((part) => part.trim());
    if (!name) continue;
    out.push({ kind: match[1]!.toLowerCase(), name, weight: tagWeight(args) });
  }
  return out;
}

/** The `embedding:name` words of `prompt`. */
export function embeddingTags(prompt: string): PromptTag[] {
  const out: PromptTag[] = [];
  for (const match of prompt.matchAll(EMBEDDING)) {
    out.push({ kind: 'embedding', name: match[1]!, weight: match[2] === undefined ? 1 : Number(match[2]) });
  }
  return out;
}

/** `prompt` without any `<kind:…>` tag, with doubled commas and spaces collapsed and ends trimmed. */
export function cleanPrompt(prompt: string): string {
  return prompt
    .replace(NETWORK_TAG, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/,( ?,)+/g, ',')
    .replace(/ ,/g, ',')
    .replace(/\n[ ,]+/g, '\n')
    .replace(/^[\s,]+|[\s,]+$/g, '')
    .replace(/\n{2,}/g, '\n');
}

/** The te multiplier: the first positional number, or `te=`; 1 when none is given. */
function tagWeight(args: string[]): number {
  for (const arg of args) {
    const named = /^te=(-?\d+(?:\.\d+)?)$/.exec(arg);
    if (named) return Number(named[1]);
    if (/^-?\d+(\.\d+)?$/.test(arg)) return Number(arg);
  }
  return 1;
}
