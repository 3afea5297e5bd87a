/**
 * The one path-containment rule. By name (`isInside`, `isBelow`): does a path resolve to a folder
 * or below it. By real path (`isContained`, `isRemovableWithin`): symbolic links must not carry a request out of the folder it belongs to: a link planted in
 * the output folder (by an engine extension, a shared mount, another user) would otherwise serve
 * `.session_secret`, and a delete through a linked folder would remove a file elsewhere. Every
 * route that serves, zips or deletes a file checks the real path (links resolved) against the
 * real path of its folder.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Whether `target` resolves to `root` itself or below it (names only: no link is resolved). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(path.resolve(root), path.resolve(target));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Whether `target` resolves below `root` (not `root` itself; names only). */
export function isBelow(root: string, target: string): boolean {
  return isInside(root, target) && path.resolve(root) !== path.resolve(target);
}

function realpath(file: string): string | null {
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
}

/** True when `target` exists and its real path lies inside the real path of `root`. */
export function isContained(root: string, target: string): boolean {
  const realRoot = realpath(root);
  const real = realpath(target);
  return realRoot !== null && real !== null && isInside(realRoot, real);
}

/**
 * True when removing `target` cannot touch anything outside `root`: its parent folder's real
 * path is inside (the entry itself may be a link: removing a link removes only the link).
 */
export function isRemovableWithin(root: string, target: string): boolean {
  const realRoot = realpath(root);
  const parent = realpath(path.dirname(target));
  return realRoot !== null && parent !== null && isInside(realRoot, parent) && path.resolve(target) !== path.resolve(root);
}
