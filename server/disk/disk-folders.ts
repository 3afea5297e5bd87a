/**
 * Which folders hold which kind of Studio's data: the one map the usage report, the duplicate
 * finder and the orphan finder share.
 */
import path from 'node:path';
import { isBelow, isInside } from '../http/contained-path.js';

export interface DiskFolders {
  /** STUDIO_DIR: report paths are relative to it. */
  root: string;
  models: string;
  llmModels: string;
  outputs: string;
  inputs: string;
  gallery: string;
  /** Engine environments Studio manages (its engine folder; the stand-in's custom nodes). */
  engine: string[];
  /** pip and uv caches the node installs fill. */
  caches: string[];
  /** Log files and the event log. */
  logs: string[];
  /** The database folder (SQLite file, WAL). */
  database: string[];
}

/** `file` relative to the data directory when inside it, else absolute (an engine elsewhere). */
export function relativeToRoot(folders: DiskFolders, file: string): string {
  return isInside(folders.root, file) ? path.relative(folders.root, file).split(path.sep).join('/') : file;
}

/** The absolute path of a report path, or null when it leaves the data directory. */
export function resolveInRoot(folders: DiskFolders, reported: string): string | null {
  if (path.isAbsolute(reported) || reported.split(/[\\/]/).includes('..')) return null;
  const full = path.resolve(folders.root, reported);
  return isBelow(folders.root, full) ? full : null;
}
