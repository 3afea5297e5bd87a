/**
 * The runner's small helpers: upload names, the first node list of the pool, Studio's input
 * folder as the pre-check asks it, the input image a job names, the engine's extra data, and a
 * new job's record.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { ApiGraph, ObjectInfo } from '../engine/engine-graph.js';
import type { InputFileProbe } from '../engine/prompt-precheck.js';
import type { PreviewMethod } from '../config.js';
import type { Logger } from '../logging.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import { OWNER_ID } from '../contracts/users.contract.js';
import { fileStamp, localStamp } from '../time.js';
import { apiToUiWorkflow } from '../workflows/graph-to-ui.js';

/** `<base>_<YYYYMMDDHHMMSS>_<4 hex>.<ext>` (the box's local time): never clashes with an earlier upload of the same name. */
export function uniqueUploadName(original: string, now = new Date()): string {
  const ext = path.extname(original).toLowerCase().replace(/[^.a-z0-9]/g, '') || '.png';
  const base = path.basename(original, path.extname(original)).replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60) || 'image';
  return `${base}_${fileStamp(now, '')}_${crypto.randomBytes(2).toString('hex')}${ext}`;
}

/** The node list of the first engine that gives one (undefined: none did). */
export async function firstObjectInfo(engines: ReadonlyArray<{ objectInfo(): Promise<ObjectInfo | null> }>): Promise<ObjectInfo | undefined> {
  for (const engine of engines) {
    const info = await engine.objectInfo();
    if (info) return info;
  }
  return undefined;
}

/** Studio's input folder in the shape the pre-check asks an engine's `/view` (input files only). */
export function studioInputs(has: (name: string) => boolean): InputFileProbe {
  return {
    viewStream: async ({ filename, subfolder, type }) => {
      const name = subfolder ? `${subfolder}/${filename}` : filename;
      return { status: type === 'input' && has(name) ? 200 : 404, body: { destroy: () => undefined } };
    },
  };
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function imageParam(inputs: ReadonlyArray<{ id: string; type: string }>, params: Record<string, unknown>): string | null {
  const input = inputs.find((i) => i.type === 'image');
  return input ? stringOrNull(params[input.id]) : null;
}

/**
 * What the engine reads besides the graph: the preview method, and the UI-format workflow in
 * `extra_pnginfo`, which the engine embeds in every saved PNG/WEBP/video so an output dropped
 * into the engine's editor opens with its layout.
 */
export function engineExtraData(graph: ApiGraph, objectInfo: ObjectInfo | undefined, previewMethod: PreviewMethod, logger: Logger): Record<string, unknown> {
  const extra: Record<string, unknown> = { preview_method: previewMethod };
  if (!objectInfo) return extra;
  try {
    extra.extra_pnginfo = { workflow: apiToUiWorkflow(graph, objectInfo) };
  } catch (err) {
    logger.warn(`no editor workflow embedded in the outputs: ${(err as Error).message}`);
  }
  return extra;
}

/** A new job's record as it is queued: `fields` over an empty one, owned by the origin's person. */
export function queuedJob(promptId: string, folder: string, fields: Partial<JobRecord>, origin: { ownerId?: string }): JobRecord {
  return {
    prompt_id: promptId,
    workflow_id: null,
    workflow_name: null,
    output_dir: folder,
    status: 'queued',
    queued_at: localStamp(),
    started_at: null,
    finished_at: null,
    duration: null,
    input_image: null,
    params: {},
    seeds: {},
    output: null,
    error: null,
    ...fields,
    ...(origin.ownerId && origin.ownerId !== OWNER_ID ? { owner_id: origin.ownerId } : {}),
  };
}
