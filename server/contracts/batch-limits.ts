/**
 * Limits of a batch that the Run page's batch panel and the server both read. Its own file, free
 * of zod, so the renderer's bundle does not take the schema library with it.
 */

/** At most this many axes in a grid (columns, rows, pages). */
export const MAX_AXES = 3;
