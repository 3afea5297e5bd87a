/**
 * Which installed workflow fits a hub image best, and the parameters it takes from the image.
 * The score weighs, in order: the output kind (video or image), whether an input image is
 * needed, the base model family named in the workflow, a LoRA list when the prompt uses LoRAs,
 * and a text input to carry the prompt. Ties go to the lower id, so the choice is stable.
 */
import { z } from 'zod';
import type { DetectedType } from '../contracts/modelhub.contract.js';

const inputSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  label: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  step: z.number().optional(),
});

/** The manifest fields the match reads. */
export const candidateSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  category: z.string().optional(),
  description: z.string().optional(),
  inputs: z.array(inputSchema).default([]),
  outputs: z.array(z.looseObject({ type: z.string() })).default([]),
});
export type WorkflowCandidate = z.infer<typeof candidateSchema>;
type Input = z.infer<typeof inputSchema>;

/** What the image asks of a workflow. */
export interface ImageNeeds {
  detectedType: DetectedType;
  baseModel: string | null;
  usesLoras: boolean;
}

/** The best candidate for the image, or null when there is none. */
export function bestWorkflow(candidates: readonly WorkflowCandidate[], needs: ImageNeeds): WorkflowCandidate | null {
  let best: { candidate: WorkflowCandidate; score: number } | null = null;
  for (const candidate of [...candidates].sort((a, b) => a.id.localeCompare(b.id))) {
    const score = scoreOf(candidate, needs);
    if (!best || score > best.score) best = { candidate, score };
  }
  return best?.candidate ?? null;
}

function scoreOf(w: WorkflowCandidate, needs: ImageNeeds): number {
  const wantsVideo = needs.detectedType.endsWith('v');
  const wantsImage = needs.detectedType.startsWith('i');
  const makesVideo = w.outputs.some((o) => o.type === 'video') || w.category === 'video';
  const takesImage = w.inputs.some((i) => i.type === 'image');
  let score = makesVideo === wantsVideo ? 16 : 0;
  score += takesImage === wantsImage ? 8 : 0;
  const family = familyOf(needs.baseModel);
  const text = `${w.id} ${w.name ?? ''} ${w.description ?? ''}`.toLowerCase();
  if (family && FAMILY_WORDS[family]!.some((word) => text.includes(word))) score += 4;
  if (needs.usesLoras && w.inputs.some((i) => i.type === 'loras')) score += 2;
  if (promptInput(w.inputs)) score += 1;
  return score;
}

const FAMILY_WORDS: Readonly<Record<string, string[]>> = {
  sdxl: ['sdxl'],
  sd15: ['sd15', 'sd 1.5', 'sd1.5'],
  flux: ['flux'],
  wan: ['wan'],
  hunyuan: ['hunyuan'],
  ltx: ['ltx'],
};

function familyOf(baseModel: string | null): string | null {
  const base = (baseModel ?? '').toLowerCase();
  if (/sdxl|pony|illustrious/.test(base)) return 'sdxl';
  if (/sd\s*1\.5/.test(base)) return 'sd15';
  if (base.includes('flux')) return 'flux';
  if (/\bwan\b/.test(base)) return 'wan';
  if (base.includes('hunyuan')) return 'hunyuan';
  if (base.includes('ltx')) return 'ltx';
  return null;
}

/** The text input that holds the positive prompt. */
export function promptInput(inputs: readonly Input[]): Input | undefined {
  const texts = inputs.filter((i) => i.type === 'text' && !/negative/i.test(`${i.id} ${i.label ?? ''}`));
  return texts.find((i) => /^(positive|prompt|positive_prompt|text)$/i.test(i.id)) ?? texts.find((i) => /prompt/i.test(`${i.id} ${i.label ?? ''}`)) ?? texts[0];
}

/** The text input that holds the negative prompt. */
export function negativeInput(inputs: readonly Input[]): Input | undefined {
  return inputs.find((i) => i.type === 'text' && /negative/i.test(`${i.id} ${i.label ?? ''}`));
}

/** `value` kept inside the input's min/max and on its step. */
export function fitNumber(input: Input, value: number): number {
  let v = value;
  if (input.step && input.step > 0) v = Math.round(v / input.step) * input.step;
  if (input.min !== undefined) v = Math.max(input.min, v);
  if (input.max !== undefined) v = Math.min(input.max, v);
  return input.type === 'int' || input.type === 'seed' ? Math.round(v) : v;
}
