/**
 * `POST /api/admin/modelhub/image/{image_id}/preset` (beyond the spec, issue #14): a preset for
 * the installed workflow that fits a hub image best (see workflow-match.ts), carrying the
 * image's prompt (without LoRA tags), negative prompt, seed, steps, CFG and size where the
 * workflow has such inputs, and the image's catalogued LoRAs when it takes a LoRA list.
 */
import { DomainError } from '../domain-error.js';
import type { ImageLookupService } from './image-lookup.service.js';
import type { ImageLookup, ImagePresetOptions, ImagePresetResult } from '../contracts/modelhub.contract.js';
import { bestWorkflow, candidateSchema, fitNumber, negativeInput, promptInput, type WorkflowCandidate } from './workflow-match.js';

/** What the model hub needs of the presets capability. */
export interface PresetSink {
  createPreset(input: Record<string, unknown>): Promise<{ id: string; message: string }>;
  exists(id: string): Promise<boolean>;
}

export interface ImagePresetDeps {
  lookup: ImageLookupService;
  presets: PresetSink;
  /** The installed workflows' manifests. */
  workflows: () => Promise<Array<Record<string, unknown>>>;
  /** `https://civitai.com` (the page link in the description). */
  hubBaseUrl: string;
}

export class ImagePresetService {
  constructor(private readonly deps: ImagePresetDeps) {}

  /** Look the image up, pick a workflow, fill its parameters, save the preset. */
  async create(imageId: number, opts: ImagePresetOptions): Promise<ImagePresetResult> {
    const image = await this.deps.lookup.lookup(imageId);
    const candidates = (await this.deps.workflows()).flatMap((raw) => {
      const parsed = candidateSchema.safeParse(raw);
      return parsed.success ? [parsed.data] : [];
    });
    const workflow = opts.workflow_id
      ? candidates.find((c) => c.id === opts.workflow_id)
      : bestWorkflow(candidates, {
          detectedType: image.detected_type,
          baseModel: typeof image.raw.baseModel === 'string' ? image.raw.baseModel : null,
          usesLoras: image.detected_deps.some((d) => d.source === 'lora' || d.source === 'lyco'),
        });
    if (!workflow) throw new DomainError('not_found', opts.workflow_id ? `Workflow ${opts.workflow_id} is not installed` : 'No installed workflow to make a preset with');
    const params = paramsFor(workflow, image);
    const id = opts.id ?? (await this.freeId(`modelhub-${imageId}`));
    const saved = await this.deps.presets.createPreset({
      id,
      name: opts.name ?? (image.clean_prompt ? `${image.clean_prompt.slice(0, 60)}` : `Model hub image ${imageId}`),
      description: `From ${this.deps.hubBaseUrl}/images/${imageId}`,
      workflow: { workflow_id: workflow.id, ...(workflow.name ? { workflow_name: workflow.name } : {}), params },
      source: { type: 'modelhub', modelhub_image_id: imageId, detected_type: image.detected_type },
    });
    return { ...saved, workflow_id: workflow.id, detected_type: image.detected_type, params };
  }

  private async freeId(base: string): Promise<string> {
    for (let n = 1; ; n += 1) {
      const id = n === 1 ? base : `${base}-${n}`;
      if (!(await this.deps.presets.exists(id))) return id;
    }
  }
}

/** The workflow's parameters the image can fill. */
function paramsFor(workflow: WorkflowCandidate, image: ImageLookup): Record<string, unknown> {
  const meta = image.meta;
  const params: Record<string, unknown> = {};
  const prompt = promptInput(workflow.inputs);
  if (prompt && image.clean_prompt) params[prompt.id] = image.clean_prompt;
  const negative = negativeInput(workflow.inputs);
  if (negative && typeof meta.negativePrompt === 'string' && meta.negativePrompt) params[negative.id] = meta.negativePrompt;
  const size = sizeOf(meta, image);
  for (const input of workflow.inputs) {
    const id = input.id.toLowerCase();
    const number = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN);
    if (input.type === 'seed') {
      const seed = number(meta.seed);
      if (Number.isSafeInteger(seed) && seed >= 0) params[input.id] = seed;
    } else if (id === 'steps' && Number.isFinite(number(meta.steps))) params[input.id] = fitNumber(input, number(meta.steps));
    else if ((id === 'cfg' || id === 'cfg_scale') && Number.isFinite(number(meta.cfgScale))) params[input.id] = fitNumber(input, number(meta.cfgScale));
    else if (id === 'width' && size) params[input.id] = fitNumber(input, size.width);
    else if (id === 'height' && size) params[input.id] = fitNumber(input, size.height);
    else if (input.type === 'loras') {
      const loras = image.detected_deps
        .filter((d) => (d.source === 'lora' || d.source === 'lyco') && d.catalog === 'loras' && d.catalog_file)
        .map((d) => ({ name: d.catalog_file!, strength: d.weight }));
      if (loras.length) params[input.id] = input.max ? loras.slice(0, input.max) : loras;
    }
  }
  return params;
}

function sizeOf(meta: Record<string, unknown>, image: ImageLookup): { width: number; height: number } | null {
  const match = typeof meta.Size === 'string' ? /^(\d+)\s*x\s*(\d+)$/i.exec(meta.Size.trim()) : null;
  if (match) return { width: Number(match[1]), height: Number(match[2]) };
  const { width, height } = image.raw;
  return typeof width === 'number' && typeof height === 'number' ? { width, height } : null;
}
