/**
 * Generation data as people read it: the hub's and the engines' keys (`cfgScale`, `Size`,
 * `Denoising strength`) under one set of plain labels, in a fixed order, for the model hub
 * lookup and the gallery's info dialog alike.
 */

/** One labelled value. */
export interface GenerationFact {
  label: string;
  value: string;
}

/** Known keys → labels, in the order they are shown. */
const LABELS: ReadonlyArray<readonly [string, string]> = [
  ['Model', 'Model'],
  ['baseModel', 'Base model'],
  ['seed', 'Seed'],
  ['steps', 'Steps'],
  ['sampler', 'Sampler'],
  ['scheduler', 'Scheduler'],
  ['cfgScale', 'CFG scale'],
  ['Size', 'Size'],
  ['Denoising strength', 'Denoising strength'],
  ['clipSkip', 'CLIP skip'],
  ['Clip skip', 'CLIP skip'],
  ['Hires upscale', 'Hires upscale'],
  ['Hires upscaler', 'Hires upscaler'],
  ['workflow', 'Workflow'],
];

function shown(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** The known, readable facts of a generation `meta`, labelled; unknown and nested keys are left out. */
export function generationFacts(meta: Record<string, unknown>): GenerationFact[] {
  const out: GenerationFact[] = [];
  const seen = new Set<string>();
  for (const [key, label] of LABELS) {
    const value = shown(meta[key]);
    if (value === null || seen.has(label)) continue;
    seen.add(label);
    out.push({ label, value });
  }
  return out;
}
