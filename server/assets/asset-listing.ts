/**
 * Listings of `GET /api/admin/assets/{inputs|outputs}` (spec "Asset entries"). Outputs are
 * mostly job folders (`<job>/{final,preview,intermediate}`, plus `image`/`video` from older
 * layouts); each becomes one `studio_jobs` group, and `files` holds the media that is not inside
 * a job folder, so every file appears once. `total_size` counts every non-hidden file.
 *
 * Synchronous on purpose: a listing is one burst of readdir/stat calls (20 000 files take tens
 * of milliseconds), and going through the libuv pool per file is several times slower.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mediaKindOf } from '../media-types.js';
import type { AssetFile, AssetListing, JobGroup } from '../contracts/assets.contract.js';

const JOB_SUBFOLDERS = new Set(['final', 'preview', 'intermediate', 'image', 'video']);
const INCOMPLETE_MARKER = '.incomplete';
/** Deep enough for any engine subfolder layout, shallow enough that a symlink loop ends. */
const MAX_DEPTH = 8;

/** The inputs listing: every media file under `root`, newest first. */
export function listInputs(root: string): AssetListing {
  const files: AssetFile[] = [];
  const bytes = walkAll(root, '', files, 0);
  sortNewestFirst(files);
  return { files, studio_jobs: [], total_size: bytes };
}

/** The outputs listing: job folders as groups, other media as files, both newest first. */
export function listOutputs(root: string): AssetListing {
  const files: AssetFile[] = [];
  const groups: JobGroup[] = [];
  let looseBytes = 0;
  for (const entry of readDir(root)) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) {
      const dir = path.join(root, entry.name);
      if (isJobFolder(dir)) groups.push(readJobFolder(root, entry.name));
      else looseBytes += walkAll(dir, entry.name, files, 1);
    } else if (entry.isFile()) {
      looseBytes += sizeOf(path.join(root, entry.name));
      const file = fileEntry(root, '', entry.name);
      if (file) files.push(file);
    }
  }
  sortNewestFirst(files);
  groups.sort((a, b) => b.modified - a.modified || a.folder.localeCompare(b.folder));
  const total = looseBytes + groups.reduce((acc, group) => acc + group.total_size, 0);
  return { files, studio_jobs: groups, total_size: total };
}

/** A top-level folder is a job folder when it has a job subfolder or the running-job marker. */
function isJobFolder(dir: string): boolean {
  for (const entry of readDir(dir)) {
    if (entry.name === INCOMPLETE_MARKER) return true;
    if (entry.isDirectory() && JOB_SUBFOLDERS.has(entry.name)) return true;
  }
  return false;
}

/** One job folder as a group (see the spec's "Output job group"). */
function readJobFolder(root: string, folder: string): JobGroup {
  const dir = path.join(root, folder);
  const buckets: Record<'final' | 'preview' | 'intermediate', AssetFile[]> = { final: [], preview: [], intermediate: [] };
  let totalSize = 0;
  let modified = mtimeOf(dir);
  let incomplete = false;
  for (const entry of readDir(dir)) {
    if (entry.name === INCOMPLETE_MARKER) {
      incomplete = true;
      continue;
    }
    if (entry.name.startsWith('.')) continue;
    const found: AssetFile[] = [];
    if (entry.isDirectory()) {
      totalSize += walkAll(path.join(dir, entry.name), `${folder}/${entry.name}`, found, 2);
    } else if (entry.isFile()) {
      totalSize += sizeOf(path.join(dir, entry.name));
      const file = fileEntry(root, folder, entry.name);
      if (file) found.push(file);
    }
    const bucket = entry.name === 'preview' ? 'preview' : entry.name === 'intermediate' ? 'intermediate' : 'final';
    buckets[bucket].push(...found);
    for (const file of found) if (file.modified > modified) modified = file.modified;
  }
  for (const list of Object.values(buckets)) list.sort((a, b) => a.path.localeCompare(b.path));
  const videos = buckets.final.filter((file) => file.type === 'video');
  const images = buckets.final.filter((file) => file.type === 'image');
  const previews = buckets.preview;
  const thumb = previews[0] ?? images[0] ?? null;
  const group: JobGroup = {
    folder,
    folder_path: dir,
    total_size: totalSize,
    modified,
    incomplete,
    type: videos.length > 0 ? 'studio_job' : 'studio_gallery',
    video_count: videos.length,
    image_count: images.length,
    preview_count: previews.length,
    intermediate_count: buckets.intermediate.length,
    thumbnail: thumb ? { filename: thumb.filename, subfolder: thumb.subfolder } : null,
    images,
    previews,
    intermediates: buckets.intermediate,
  };
  if (videos.length > 0) group.video = videos.reduce((newest, file) => (file.modified > newest.modified ? file : newest));
  return group;
}

/** Media files below `dir` into `out`; returns the bytes of every (non-hidden) file seen. */
function walkAll(dir: string, rel: string, out: AssetFile[], depth: number): number {
  if (depth > MAX_DEPTH) return 0;
  let bytes = 0;
  for (const entry of readDir(dir)) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      bytes += walkAll(full, rel ? `${rel}/${entry.name}` : entry.name, out, depth + 1);
    } else if (entry.isFile()) {
      const type = mediaKindOf(entry.name);
      const stat = statOf(full);
      if (!stat) continue;
      bytes += stat.size;
      if (type) out.push({ filename: entry.name, path: rel ? `${rel}/${entry.name}` : entry.name, subfolder: rel, size: stat.size, modified: stat.mtimeMs / 1000, type });
    }
  }
  return bytes;
}

function fileEntry(root: string, subfolder: string, name: string): AssetFile | null {
  const type = mediaKindOf(name);
  if (!type) return null;
  const stat = statOf(path.join(root, subfolder, name));
  if (!stat) return null;
  return { filename: name, path: subfolder ? `${subfolder}/${name}` : name, subfolder, size: stat.size, modified: stat.mtimeMs / 1000, type };
}

function readDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function statOf(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch {
    return null;
  }
}

function sizeOf(file: string): number {
  return statOf(file)?.size ?? 0;
}

function mtimeOf(file: string): number {
  return (statOf(file)?.mtimeMs ?? 0) / 1000;
}

function sortNewestFirst(files: AssetFile[]): void {
  files.sort((a, b) => b.modified - a.modified || a.path.localeCompare(b.path));
}
