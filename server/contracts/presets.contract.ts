/**
 * The preset document (spec "Preset") as zod schemas, and the list entry shape. Unknown fields
 * are kept, so a preset exported by a newer Studio survives an import and a re-export here.
 */
import { z } from 'zod';
import { textOnce } from './fields.js';

/** Preset ids are file names: letters, digits, `-` and `_` only. */
export const PRESET_ID = /^[A-Za-z0-9_-]+$/;

/** Longest id: a file name on every file system, with room for `.json` and a temp suffix. */
const MAX_PRESET_ID_LENGTH = 120;

export const presetIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_PRESET_ID_LENGTH, `must be at most ${MAX_PRESET_ID_LENGTH} characters`)
  .regex(PRESET_ID, 'only letters, digits, "-" and "_" are allowed');

const presetSourceSchema = z.looseObject({
  type: z.string().min(1),
  modelhub_image_id: z.number().int().optional(),
  /** Set by the model hub for presets made from its images (`t2i`, `i2i`, `t2v`, `i2v`). */
  detected_type: z.string().optional(),
});

const presetWorkflowSchema = z.looseObject({
  workflow_id: z.string().min(1, 'must not be empty'),
  workflow_name: z.string().optional(),
  params: z.record(z.string(), z.unknown()).default({}),
});

/** A preset as a client sends it: `id` and `workflow` required, the rest defaulted later. */
export const presetInputSchema = z.looseObject({
  id: presetIdSchema,
  name: z.string().optional(),
  description: z.string().optional(),
  private: z.boolean().optional(),
  /** Owner and admins: every person sees and may run it (only its owner and admins change it). */
  shared: z.boolean().optional(),
  workflow: presetWorkflowSchema,
  source: presetSourceSchema.optional(),
});

export type PresetInput = z.input<typeof presetInputSchema>;
export type PresetSource = z.infer<typeof presetSourceSchema>;

/** A stored preset: every spec field present. */
export interface Preset {
  id: string;
  name: string;
  description: string;
  private: boolean;
  workflow: { workflow_id: string; workflow_name: string; params: Record<string, unknown>; [key: string]: unknown };
  source?: PresetSource;
  [key: string]: unknown;
}

/** `PUT /{id}/rename` body. */
export const renameSchema = z.object({
  id: presetIdSchema.optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  private: z.boolean().optional(),
  shared: z.boolean().optional(),
});

export type RenameInput = z.infer<typeof renameSchema>;

/** `POST /from-job/{prompt_id}` body (optional). */
export const fromJobSchema = z.object({
  id: presetIdSchema.optional(),
  name: z.string().optional(),
});

export type FromJobInput = z.infer<typeof fromJobSchema>;

/** One row of `GET /api/admin/presets`. */
export interface PresetListEntry {
  id: string;
  name: string;
  description: string;
  private: boolean;
  workflow_id: string;
  workflow_name: string;
  source_type?: string;
  modelhub_image_id?: number | null;
  modelhub_url?: string | null;
  detected_type?: string | null;
  /** The person it belongs to; absent for the owner of Studio. */
  owner_id?: string;
  /** Present (true) when shared with everyone. */
  shared?: true;
  /** Present (false) when the asker may not run it: a viewer or read key, or a workflow outside their allow-list (issue 43). */
  runnable?: false;
  /** Present when the preset asks questions at each run (its `[[question:a|b]]` placeholders), in order. */
  questions?: string[];
}

/** Fill the defaults of a validated input (`name` = id, `private` = false, …). */
export function completePreset(input: z.infer<typeof presetInputSchema>): Preset {
  const { id, name, description, workflow, source, ...rest } = input;
  const preset: Preset = {
    ...rest,
    id,
    name: name?.trim() ? name : id,
    description: description ?? '',
    private: input.private ?? false,
    workflow: { ...workflow, workflow_id: workflow.workflow_id, workflow_name: workflow.workflow_name ?? workflow.workflow_id, params: workflow.params },
  };
  if (source) preset.source = source;
  return preset;
}

/** One placeholder question as the API shows it. */
export interface PlaceholderQuestion {
  index: number;
  scene: number;
  question: string;
  options: string[];
  raw: string;
  field: string;
}

/** `POST /{id}/run`: multipart text fields beside the optional `input_image` file. */
export const presetRunFields = z.object({ seed: textOnce('seed'), answers: textOnce('answers'), existing_image: textOnce('existing_image') });
