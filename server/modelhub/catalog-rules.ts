/**
 * The spec's catalog-add rules as data: hub type → category and `dest`, the base models whose
 * checkpoints are diffusion models, the LoRA category a base model is promoted into, and the
 * display name `<ModelName> <VersionName> [<BaseModel> <FP>]`.
 */
import type { ModelhubFile, ModelhubVersion } from '../modelhub-client/modelhub.schema.js';

/** Where an entry of a hub type goes in `models.json`. */
export interface Placement {
  category: string;
  dest: string;
}

/** The hub type table. LoCon and DoRA are LoRA variants the engine loads the same way. */
const TYPE_TABLE: Readonly<Record<string, Placement>> = {
  checkpoint: { category: 'checkpoints', dest: 'checkpoints' },
  lora: { category: 'loras', dest: 'loras' },
  locon: { category: 'loras', dest: 'loras' },
  dora: { category: 'loras', dest: 'loras' },
  vae: { category: 'vae', dest: 'vae' },
  textualinversion: { category: 'embeddings', dest: 'embeddings' },
  controlnet: { category: 'controlnet', dest: 'controlnet' },
  upscaler: { category: 'upscalers', dest: 'upscale_models' },
};

/** Display names of the categories Studio creates when a catalog lacks them. */
export const CATEGORY_NAMES: Readonly<Record<string, string>> = {
  checkpoints: 'Checkpoints',
  diffusion_models: 'Diffusion models',
  loras: 'LoRAs',
  vae: 'VAE',
  embeddings: 'Embeddings',
  controlnet: 'ControlNet',
  upscalers: 'Upscalers',
  wan_loras: 'WAN LoRAs',
  flux_loras: 'Flux LoRAs',
  sdxl_loras: 'SDXL LoRAs',
  sd15_loras: 'SD 1.5 LoRAs',
  other_loras: 'Other LoRAs',
};

const DIFFUSION_BASES = [/flux/i, /\bwan\b/i, /hunyuan\s*video/i, /cogvideo/i, /\bltx/i];

/** Where a version of `hubType` with `baseModel` goes, or null for a type the table lacks. */
export function placementFor(hubType: string, baseModel: string | null | undefined): Placement | null {
  const placement = TYPE_TABLE[hubType.toLowerCase()];
  if (!placement) return null;
  if (placement.dest === 'checkpoints' && baseModel && DIFFUSION_BASES.some((re) => re.test(baseModel))) {
    return { category: 'diffusion_models', dest: 'diffusion_models' };
  }
  return placement;
}

/** The `loras.json` category of a LoRA with `baseModel` (the spec's promote table). */
export function loraCategoryFor(baseModel: string | null | undefined): string {
  const base = baseModel ?? '';
  if (/\bwan\b/i.test(base)) return 'wan_loras';
  if (/flux/i.test(base)) return 'flux_loras';
  if (/sdxl|pony|illustrious/i.test(base)) return 'sdxl_loras';
  if (/sd\s*1\.5/i.test(base)) return 'sd15_loras';
  return 'other_loras';
}

/** `<ModelName> <VersionName> [<BaseModel> <FP>]` (the bracket left out when both are unknown). */
export function displayName(version: ModelhubVersion, file: ModelhubFile | undefined): string {
  const model = version.model?.name ?? '';
  const bracket = [version.baseModel, file?.metadata?.fp].filter((part): part is string => Boolean(part)).join(' ');
  return `${model} ${version.name}${bracket ? ` [${bracket}]` : ''}`.trim();
}

/** The file a catalog entry stands for: the primary model file, else the first model file, else the first. */
export function mainFile(files: readonly ModelhubFile[]): ModelhubFile | undefined {
  const isModel = (f: ModelhubFile) => !f.type || f.type === 'Model' || f.type === 'Pruned Model';
  return files.find((f) => f.primary && isModel(f)) ?? files.find(isModel) ?? files.find((f) => f.primary) ?? files[0];
}

/** Why a version cannot be downloaded (spec: `restricted`), or null when it can. */
export function restriction(version: ModelhubVersion): string | null {
  if (version.usageControl && version.usageControl !== 'Download') {
    return `The creator does not allow downloading this version (usageControl: ${version.usageControl}); it can only be used on the model hub`;
  }
  if (version.availability && version.availability !== 'Public') {
    return `This version is not publicly available (availability: ${version.availability})`;
  }
  if (version.model?.mode === 'Archived' || version.model?.mode === 'TakenDown') {
    return `The model is ${version.model.mode === 'Archived' ? 'archived' : 'taken down'} on the model hub; its files are gone`;
  }
  if (!version.files || version.files.length === 0) return 'The model hub lists no downloadable file for this version';
  return null;
}
