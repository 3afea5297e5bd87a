/**
 * The engine's `GET /view` rules in one place: the stand-in answers
 * `/view` with them, and Studio uses them to read the folders it shares with the engine itself.
 * Which file a query names (`name [output]` annotations; a name starting with `/` or holding `..`
 * → 400; a subfolder escaping its folder → 403) and the Content-Type it is sent with.
 */
import path from 'node:path';
import { contentTypeOf } from '../media-types.js';
import { isInside } from '../http/contained-path.js';
import { annotatedPath, dirByType, pyBasename, type EngineDirs, type FolderType } from './engine-paths.js';

export interface ViewQuery {
  filename: string;
  /** The `type` query value; an annotation in `filename` wins over it. */
  type: string;
  /** Null when the query has no `subfolder` at all (the engine then skips the escape check). */
  subfolder: string | null;
}

/** The file a view query names (it may not exist), or the status the engine refuses it with. */
export type ViewTarget = { file: string; folder: FolderType } | { status: 400 | 403 };

/** Resolve a view query against `dirs` exactly as the engine does. */
export function resolveViewFile(dirs: EngineDirs, query: ViewQuery): ViewTarget {
  const annotated = annotatedPath(query.filename, dirs, null);
  const name = annotated.name;
  if (name === '' || name.startsWith('/') || name.includes('..')) return { status: 400 };
  const folder = annotated.folder ?? (dirByType(dirs, query.type) ? (query.type as FolderType) : null);
  if (!folder) return { status: 400 };
  let dir = dirs[folder];
  if (query.subfolder !== null) {
    const full = path.resolve(dir, query.subfolder);
    if (!isInside(dir, full)) return { status: 403 };
    dir = full;
  }
  return { file: path.join(dir, pyBasename(name)), folder };
}

/** Types the engine forces to download instead of rendering (it serves user-made files). */
const FORCED_DOWNLOAD = new Set(['text/html', 'text/html-sandboxed', 'application/xhtml+xml', 'text/javascript', 'text/css']);

/** The Content-Type the engine sends a file with: guessed from the extension, markup and scripts downgraded. */
export function viewContentType(filename: string): string {
  return safeViewContentType(contentTypeOf(filename));
}

/** An engine-given Content-Type with the engine's own download rule applied (for answers relayed as they came). */
export function safeViewContentType(type: string): string {
  const essence = type.split(';')[0]!.trim().toLowerCase();
  return FORCED_DOWNLOAD.has(essence) ? 'application/octet-stream' : type;
}
