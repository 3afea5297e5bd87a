/**
 * Hub-readable metadata in a finished job's outputs, at output collection: each image and video
 * of its folder (not the sampler previews in `preview/`) gets the A1111 `parameters` text made
 * from the graph that ran, without its pixels being decoded or encoded again: PNG text chunks
 * (the engine's own `prompt`/`workflow` kept), JPEG/WebP EXIF UserComment, and a container
 * comment for videos (ffmpeg, streams copied). Each file is rewritten through a temp file and a
 * rename. A file that cannot be stamped is logged and left as the engine wrote it.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ApiGraph } from '../engine/engine-graph.js';
import { writeFileAtomic } from '../fs-durable.js';
import type { Logger } from '../logging.js';
import type { JobLock } from '../contracts/provenance.contract.js';
import { filesBelow } from '../zip-writer.js';
import { jpegWithComment, webpWithComment } from './exif-comment.js';
import { graphFacts, type ModelRef } from './graph-facts.js';
import { infotext, type ModelFacts } from './infotext.js';
import { isPng, withTexts } from './png-text.js';
import { withoutPromptText } from './private-prompts.js';
import { setVideoComment, type VideoCommentOptions } from './video-comment.js';

export interface OutputStampDeps {
  /** False when the setting turns output metadata off. */
  enabled(): boolean;
  /** True when the workflow keeps its prompts private. */
  privatePrompts(workflowId: string | null): boolean;
  /** What is known of a model file (its SHA-256 from the hash store, the hub version id from the catalog). */
  modelFacts(ref: ModelRef): Promise<ModelFacts>;
  video?: VideoCommentOptions;
  logger: Logger;
}

const VIDEO = new Set(['.mp4', '.m4v', '.mov', '.webm', '.mkv']);

export class OutputStamper {
  constructor(private readonly deps: OutputStampDeps) {}

  /** The `parameters` text for `graph` (null when it holds nothing an infotext says). */
  async parametersOf(graph: ApiGraph, workflowId: string | null): Promise<string | null> {
    const facts = graphFacts(graph);
    const known = new Map<string, ModelFacts>();
    for (const ref of [...(facts.model ? [facts.model] : []), ...facts.loras]) {
      known.set(`${ref.folder}/${ref.file}`, await this.deps.modelFacts(ref).catch(() => ({})));
    }
    return infotext({ facts, models: (folder, file) => known.get(`${folder}/${file}`) ?? {}, privatePrompts: this.deps.privatePrompts(workflowId) });
  }

  /**
   * Stamp every output of the folder `jobDir`; resolves with how many files were stamped. A PNG
   * also carries the job's lock (`studio_lock`, JSON) so that Run again works from the image
   * alone, on this Studio or another; not with private prompts (the lock holds the parameters).
   */
  async stampFolder(jobDir: string, workflowId: string | null, graph: ApiGraph, lock?: JobLock | null): Promise<number> {
    if (!this.deps.enabled()) return 0;
    const parameters = await this.parametersOf(graph, workflowId);
    const hidePrompts = this.deps.privatePrompts(workflowId);
    if (parameters === null && !hidePrompts && !lock) return 0;
    const pngTexts = { parameters, studio_lock: lock && !hidePrompts ? JSON.stringify(lock) : null };
    let stamped = 0;
    for (const { file, name } of filesBelow(jobDir)) {
      if (name.startsWith('preview/')) continue;
      try {
        if (await this.stampFile(file, parameters, pngTexts, hidePrompts)) stamped++;
      } catch (err) {
        this.deps.logger.warn(`no metadata written into ${name}: ${(err as Error).message}`);
      }
    }
    return stamped;
  }

  private async stampFile(file: string, parameters: string | null, pngTexts: Record<string, string | null>, hidePrompts: boolean): Promise<boolean> {
    const ext = path.extname(file).toLowerCase();
    if (VIDEO.has(ext)) {
      if (parameters === null) return false;
      await setVideoComment(file, parameters, this.deps.video);
      return true;
    }
    if (!['.png', '.jpg', '.jpeg', '.webp'].includes(ext)) return false;
    const bytes = await fsp.readFile(file);
    let out: Buffer;
    if (isPng(bytes)) out = withTexts(bytes, pngTexts, hidePrompts ? withoutPromptText : undefined);
    else if (parameters === null) return false;
    else if (bytes[0] === 0xff && bytes[1] === 0xd8) out = jpegWithComment(bytes, parameters);
    else if (bytes.toString('latin1', 0, 4) === 'RIFF') out = webpWithComment(bytes, parameters);
    else return false;
    await writeFileAtomic(file, out);
    return true;
  }
}
