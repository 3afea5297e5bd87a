/** The download queue's leftovers, as the disk page tells them apart from finished files. */

/** A download's part file or its resume sidecar (`<file>.part`, `<file>.part.meta.json`). */
export function isPartialDownload(file: string): boolean {
  return file.endsWith('.part') || file.endsWith('.part.meta.json');
}

/** The final file a part file belongs to. */
export function finalFileOfPart(file: string): string {
  return file.replace(/\.part(\.meta\.json)?$/, '');
}
