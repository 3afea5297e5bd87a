/**
 * The A1111 "infotext" (`parameters`) the model hubs read from an uploaded image: the prompt, a
 * `Negative prompt:` line, then one line of `Key: value` pairs joined by `, `. Values holding a
 * comma, colon or quote are JSON-quoted as A1111 does; the `Civitai resources` JSON list comes
 * last, unquoted, as the hub's own generator writes it. Sampler and scheduler names are the
 * A1111 names where there is one (the hubs map those), else the engine's own.
 */
import path from 'node:path';
import type { GraphFacts } from './graph-facts.js';

/** What the catalogs and hash store know of a model file. */
export interface ModelFacts {
  /** The file's SHA-256 (hex), when known. */
  sha256?: string | null;
  /** The model hub's version id, where a catalog records it. */
  hubVersionId?: number | string | null;
}

export interface InfotextInput {
  facts: GraphFacts;
  /** Facts of a model file by `folder/file`. */
  models: (folder: string, file: string) => ModelFacts;
  /** Leave the prompt and the negative prompt out (the workflow's private prompts). */
  privatePrompts: boolean;
}

const SAMPLER_NAMES: Record<string, string> = {
  euler: 'Euler',
  euler_ancestral: 'Euler a',
  heun: 'Heun',
  dpm_2: 'DPM2',
  dpm_2_ancestral: 'DPM2 a',
  lms: 'LMS',
  dpm_fast: 'DPM fast',
  dpm_adaptive: 'DPM adaptive',
  dpmpp_2s_ancestral: 'DPM++ 2S a',
  dpmpp_sde: 'DPM++ SDE',
  dpmpp_2m: 'DPM++ 2M',
  dpmpp_2m_sde: 'DPM++ 2M SDE',
  dpmpp_3m_sde: 'DPM++ 3M SDE',
  ddim: 'DDIM',
  uni_pc: 'UniPC',
  lcm: 'LCM',
};

const SCHEDULE_NAMES: Record<string, string> = {
  normal: 'Normal',
  karras: 'Karras',
  exponential: 'Exponential',
  sgm_uniform: 'SGM Uniform',
  simple: 'Simple',
  ddim_uniform: 'DDIM',
  beta: 'Beta',
  kl_optimal: 'KL Optimal',
};

/** AutoV2: the first 10 hex digits of the file's SHA-256. */
function autoV2(sha256: string | null | undefined): string | undefined {
  return sha256 && /^[0-9a-f]{64}$/i.test(sha256) ? sha256.slice(0, 10).toLowerCase() : undefined;
}

/** A model's name as A1111 shows it: the file name without folders or extension. */
function modelName(file: string): string {
  return path.posix.basename(file.replaceAll('\\', '/')).replace(/\.[^.]+$/, '');
}

/** A1111's `quote`: a value with a comma, colon, quote or newline becomes a JSON string. */
function quoted(value: string): string {
  return /[,:"\n]/.test(value) ? JSON.stringify(value) : value;
}

/** The `Civitai resources` list: the checkpoint and each LoRA with its hash, weight and hub version id where known. */
function civitaiResources(input: InfotextInput): Array<Record<string, unknown>> {
  const { facts, models } = input;
  const out: Array<Record<string, unknown>> = [];
  const entry = (type: string, folder: string, file: string, weight?: number | null) => {
    const known = models(folder, file);
    const resource: Record<string, unknown> = { type, modelName: modelName(file) };
    if (weight !== undefined && weight !== null) resource.weight = weight;
    const hash = autoV2(known.sha256);
    if (hash) resource.hash = hash;
    if (known.hubVersionId) resource.modelVersionId = Number(known.hubVersionId);
    out.push(resource);
  };
  if (facts.model) entry('checkpoint', facts.model.folder, facts.model.file);
  for (const lora of facts.loras) entry('lora', lora.folder, lora.file, lora.weight);
  return out;
}

/** The `parameters` text; null when the graph says nothing an infotext holds. */
export function infotext(input: InfotextInput): string | null {
  const { facts, models } = input;
  const pairs: Array<[string, string]> = [];
  const add = (key: string, value: string | number | undefined) => {
    if (value !== undefined && value !== '') pairs.push([key, typeof value === 'number' ? String(value) : quoted(value)]);
  };
  add('Steps', facts.steps);
  add('Sampler', facts.sampler === undefined ? undefined : (SAMPLER_NAMES[facts.sampler] ?? facts.sampler));
  add('Schedule type', facts.scheduler === undefined ? undefined : (SCHEDULE_NAMES[facts.scheduler] ?? facts.scheduler));
  add('CFG scale', facts.cfg);
  add('Seed', facts.seed);
  if (facts.width !== undefined && facts.height !== undefined) add('Size', `${facts.width}x${facts.height}`);
  if (facts.model) {
    add('Model hash', autoV2(models(facts.model.folder, facts.model.file).sha256));
    add('Model', modelName(facts.model.file));
  }
  // A1111 writes it only where it changes something (img2img, a second pass): 1 is the default.
  if (facts.denoise !== undefined && facts.denoise !== 1) add('Denoising strength', facts.denoise);
  const loraHashes = facts.loras.flatMap((l) => {
    const hash = autoV2(models(l.folder, l.file).sha256);
    return hash ? [`${modelName(l.file)}: ${hash}`] : [];
  });
  if (loraHashes.length) pairs.push(['Lora hashes', JSON.stringify(loraHashes.join(', '))]);
  const resources = civitaiResources(input);
  if (resources.length) pairs.push(['Civitai resources', JSON.stringify(resources)]);
  const lines: string[] = [];
  if (!input.privatePrompts) {
    if (facts.prompt !== undefined) lines.push(facts.prompt);
    if (facts.negative) lines.push(`Negative prompt: ${facts.negative}`);
  }
  if (pairs.length) lines.push(pairs.map(([k, v]) => `${k}: ${v}`).join(', '));
  return lines.length ? lines.join('\n') : null;
}
