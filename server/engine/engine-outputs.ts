/**
 * The files of a finished prompt, read from its history entry: flattened, and the one the job
 * shows (its primary output). Pure functions the jobs code uses.
 */
import { mediaKindOf } from '../media-types.js';
import type { EngineFileRef, HistoryEntry } from './engine-protocol.js';

/** One file of a history entry's outputs, flattened. */
export interface EngineOutputFile {
  node_id: string;
  /** The UI dict key it came from: `images`, `gifs`, `videos`, `audio`, `3d`, … */
  kind: string;
  filename: string;
  subfolder: string;
  type: string;
  format?: string;
}

/** Flatten a history entry's outputs, keeping only dicts with a `filename` (`animated`/`text` are not files). */
export function parseHistoryOutputs(entry: Pick<HistoryEntry, 'outputs'>): EngineOutputFile[] {
  const files: EngineOutputFile[] = [];
  for (const [nodeId, ui] of Object.entries(entry.outputs)) {
    if (!ui || typeof ui !== 'object') continue;
    for (const [kind, list] of Object.entries(ui)) {
      if (!Array.isArray(list)) continue;
      for (const item of list as unknown[]) {
        if (!item || typeof item !== 'object') continue;
        const ref = item as Partial<EngineFileRef>;
        if (typeof ref.filename !== 'string' || !ref.filename) continue;
        const file: EngineOutputFile = {
          node_id: nodeId,
          kind,
          filename: ref.filename,
          subfolder: typeof ref.subfolder === 'string' ? ref.subfolder : '',
          type: typeof ref.type === 'string' ? ref.type : 'output',
        };
        if (typeof ref.format === 'string') file.format = ref.format;
        files.push(file);
      }
    }
  }
  return files;
}

const VIDEO_KINDS = new Set(['gifs', 'videos', 'video']);

/** True for video files: by extension, by a `video/…` format, or by a VHS-style `gifs`/`videos` key. */
export function isVideoOutput(file: EngineOutputFile): boolean {
  return mediaKindOf(file.filename) === 'video' || (file.format?.startsWith('video/') ?? false) || VIDEO_KINDS.has(file.kind);
}

/**
 * The job's primary output: the last video, else the last image, else the last other file.
 * Only `type: output` entries count: `temp` ones are previews (and temp/ is wiped on engine start).
 */
export function primaryOutput(files: readonly EngineOutputFile[]): EngineOutputFile | null {
  let video: EngineOutputFile | null = null;
  let image: EngineOutputFile | null = null;
  let other: EngineOutputFile | null = null;
  for (const file of files) {
    if (file.type !== 'output') continue;
    if (isVideoOutput(file)) video = file;
    else if (file.kind === 'images' || mediaKindOf(file.filename) === 'image') image = file;
    else other = file;
  }
  return video ?? image ?? other;
}
