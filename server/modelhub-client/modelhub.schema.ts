/**
 * Shapes of the model hub's answers that Studio reads (its public REST API: version records, model
 * records, `/images` items and pages, tRPC batch answers). Objects are loose: the hub adds fields
 * often, and the raw item is kept whole for `raw` and the gallery's metadata.
 */
import { z } from 'zod';

const idSchema = z.union([z.number(), z.string()]).transform(String);

const fileSchema = z.looseObject({
  id: idSchema.optional(),
  name: z.string(),
  sizeKB: z.number().optional(),
  primary: z.boolean().optional(),
  type: z.string().nullish(),
  metadata: z.looseObject({ fp: z.string().nullish(), format: z.string().nullish(), size: z.string().nullish() }).nullish(),
  hashes: z.record(z.string(), z.string()).optional(),
});

/** An image as the hub lists it (version images, `/images` items). `meta` can be null. */
const imageSchema = z.looseObject({
  id: z.number().int().optional(),
  url: z.string(),
  type: z.string().nullish(),
  width: z.number().nullish(),
  height: z.number().nullish(),
  createdAt: z.string().nullish(),
  postId: z.number().nullish(),
  username: z.string().nullish(),
  nsfwLevel: z.union([z.string(), z.number()]).nullish(),
  baseModel: z.string().nullish(),
  modelVersionIds: z.array(z.number()).nullish(),
  meta: z.record(z.string(), z.unknown()).nullish(),
});

export const versionSchema = z.looseObject({
  id: idSchema,
  modelId: idSchema.optional(),
  name: z.string(),
  baseModel: z.string().nullish(),
  trainedWords: z.array(z.string()).nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
  publishedAt: z.string().nullish(),
  availability: z.string().nullish(),
  usageControl: z.string().nullish(),
  model: z.looseObject({ name: z.string(), type: z.string().nullish(), mode: z.string().nullish() }).nullish(),
  files: z.array(fileSchema).nullish(),
  images: z.array(imageSchema).nullish(),
});

export const modelSchema = z.looseObject({
  id: idSchema,
  name: z.string(),
  type: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  modelVersions: z.array(z.looseObject({ id: idSchema, name: z.string().nullish(), images: z.array(imageSchema).nullish() })).nullish(),
});

export const imagePageSchema = z.looseObject({
  items: z.array(imageSchema),
  metadata: z.looseObject({ nextCursor: z.union([z.string(), z.number()]).nullish() }).nullish(),
});

/** One answer of a tRPC batch: a result or an error, in request order. */
export const trpcBatchSchema = z.array(
  z.looseObject({
    result: z.looseObject({ data: z.looseObject({ json: z.unknown() }) }).optional(),
    error: z.unknown().optional(),
  }),
);

export const tagRecordSchema = z.looseObject({ id: z.number().int(), name: z.string() });

/** A model version record (`GET /api/v1/model-versions/{id}`), the fields Studio uses. */
export type ModelhubVersion = z.infer<typeof versionSchema>;
/** A model record (`GET /api/v1/models/{id}`), the fields Studio uses. */
export type ModelhubModel = z.infer<typeof modelSchema>;
export type ModelhubFile = z.infer<typeof fileSchema>;
/** An image item (`GET /api/v1/images`, or a version's `images[]`). */
export type ModelhubImage = z.infer<typeof imageSchema>;
