/**
 * The asset listings (`GET /api/assets/{inputs,outputs}`): loose files and job output folders.
 */
import { z } from 'zod';
/** A job output folder (`studio_jobs[]`). */
export interface JobGroup {
  folder: string;
  folder_path: string;
  total_size: number;
  modified: number;
  incomplete: boolean;
  type: 'studio_job' | 'studio_gallery';
  video_count: number;
  image_count: number;
  preview_count: number;
  intermediate_count: number;
  thumbnail: { filename: string; subfolder: string } | null;
  /** studio_job only: the main video (the newest final one). */
  video?: AssetFile;
  images: AssetFile[];
  previews: AssetFile[];
  intermediates: AssetFile[];
}

export type MediaType = 'image' | 'video';

/** A media file of a listing. */
export interface AssetFile {
  filename: string;
  /** Relative to the asset root, `/`-separated. */
  path: string;
  /** Folder part of `path`, empty at the top level. */
  subfolder: string;
  size: number;
  /** Unix seconds (float). */
  modified: number;
  type: MediaType;
}

export interface AssetListing {
  files: AssetFile[];
  studio_jobs: JobGroup[];
  total_size: number;
}

export const deleteAssetsBody = z.object({ type: z.enum(['inputs', 'outputs']), files: z.array(z.string()).max(100_000) });

export const assetFileQuery = z.object({ type: z.enum(['inputs', 'outputs']), path: z.string().min(1) });

/** The two asset areas: engine inputs and job outputs. */
export type AssetType = 'inputs' | 'outputs';

/** A file the engine knows by name and subfolder. */
export interface AssetRef {
  filename: string;
  subfolder: string;
}

/** An upload to or a delete from an asset area: what changed, and what could not. */
export interface AssetsChange {
  deleted?: string[];
  uploaded?: string[];
  errors: string[];
}
