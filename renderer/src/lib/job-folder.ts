/**
 * What a job folder's name says: `<workflow>_<YYYYMMDD-HHMMSS>_<6 hex>` (the time is the server's
 * wall clock), so the assets page can show a workflow name and a time instead of a raw id.
 */

export interface JobFolderName {
  workflowId: string;
  /** `YYYY-MM-DDTHH:MM:SS` in the server's zone. */
  stamp: string;
}

const PATTERN = /^(.+)_(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})_[0-9a-f]{6}$/;

/** The workflow id and the time a job folder was made, or null for other names. */
export function parseJobFolder(folder: string): JobFolderName | null {
  const m = PATTERN.exec(folder);
  if (!m) return null;
  const [, workflowId, y, mo, d, h, mi, s] = m;
  return { workflowId: workflowId!, stamp: `${y}-${mo}-${d}T${h}:${mi}:${s}` };
}
