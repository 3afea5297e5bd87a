/**
 * The model hub capability's answers: image lookup, presets from images, the gallery.
 */
import { z } from 'zod';

/** `present` when a catalog holds the resource (downloaded or not), else `not_found`. */
export type CatalogStatus = 'present' | 'not_found';

/** A model resource the image was made with. */
export interface ImageResource {
  modelName: string | null;
  versionId: string | null;
  type: string | null;
  weight: number | null;
  catalog_status: CatalogStatus;
  catalog_file: string | null;
  catalog: 'models' | 'loras' | null;
}

/** A LoRA or embedding named in the prompts. */
export interface DetectedDep {
  name: string;
  weight: number;
  /** The tag kind as written: `lora`, `lyco`, `hypernet`, … or `embedding`. */
  source: string;
  /** Which prompt it was found in. */
  found_in: 'prompt' | 'negative_prompt';
  catalog_status: CatalogStatus;
  catalog_file: string | null;
  catalog: 'models' | 'loras' | null;
}

/** The lookup's answer (spec "Model hub integration", `image/{image_id}`). */
export interface ImageLookup {
  /** The hub's image item, whole. */
  raw: Record<string, unknown>;
  resources: ImageResource[];
  detected_deps: DetectedDep[];
  clean_prompt: string;
  meta: Record<string, unknown>;
  type: string;
  process: string;
  techniques: unknown[];
  tools: unknown[];
  detected_type: DetectedType;
}

/** The answer: the preset id, and what went into it. */
export interface ImagePresetResult {
  id: string;
  message: string;
  workflow_id: string;
  detected_type: string;
  params: Record<string, unknown>;
}

/** A listed gallery item (built in SQL by `GalleryStore.listJson`). */
export interface GalleryItemView {
  id: number;
  model_id: string;
  source: string;
  type: 'image' | 'video';
  content_type: string;
  width: number | null;
  height: number | null;
  bytes: number;
  created_at: string | null;
  starred: boolean;
  username: string | null;
  version_id: string | null;
  media_url: string;
  thumb_url: string;
}

export type FetchStatus = 'queued' | 'running' | 'done' | 'error';

/** The state of one model's background fetch. */
export interface FetchRow {
  model_id: string;
  status: FetchStatus;
  phase: GallerySource;
  cursor: string | null;
  pages: number;
  seen: number;
  downloaded: number;
  skipped: number;
  failed: number;
  error: string | null;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** `t2i`, `i2i`, `t2v` or `i2v`. */
export type DetectedType = 't2i' | 'i2i' | 't2v' | 'i2v';

/** Where an item came from: the model's own version images, or the community's. */
export type GallerySource = 'original' | 'community';

export const galleryListQuery = z.object({
  source: z.enum(['original', 'community']).optional(),
  starred: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .optional(),
  limit: z.coerce.number().int().min(1).max(100_000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

export const galleryFetchBody = z.object({ model_id: z.union([z.string().regex(/^\d+$/), z.number().int().positive()]).transform(String).optional() });

/** `POST /image/{image_id}/preset` body (optional). */
export const imagePresetBody = z.object({
  id: z.string().optional(),
  name: z.string().optional(),
  /** Use this workflow instead of the best match. */
  workflow_id: z.string().optional(),
});

export type ImagePresetOptions = z.infer<typeof imagePresetBody>;
