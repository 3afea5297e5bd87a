/**
 * What Studio tells its owner when the database is damaged: what is wrong, where the kept copy
 * is, and how to restore (recover what SQLite can still read, or start over with an empty
 * database). Shared by the safe mode's page, its log line and event, and the desktop's dialog.
 */
import path from 'node:path';
import { keepBrokenCopy, type DatabaseCorruptError } from './database-check.js';

export interface DamagedDatabaseReport {
  file: string;
  problems: readonly string[];
  /** The kept copy of the damaged file, or null when none could be made (then `copyError`). */
  copy: string | null;
  copyError: string | null;
}

/** Keep a copy of the damaged file (never overwriting one) and describe the situation. */
export function reportDamagedDatabase(problem: DatabaseCorruptError): DamagedDatabaseReport {
  try {
    return { file: problem.file, problems: problem.problems, copy: keepBrokenCopy(problem.file), copyError: null };
  } catch (err) {
    return { file: problem.file, problems: problem.problems, copy: null, copyError: (err as Error).message };
  }
}

/**
 * The report as sentences: `what` (one paragraph) and `steps` (in order). `name` shows a path:
 * absolute for the machine's owner, relative to the data directory for LAN visitors. `safeMode`:
 * whether Studio went on in safe mode (headless) or stopped (the desktop's dialog).
 */
export function describeDamagedDatabase(
  report: DamagedDatabaseReport,
  name: (file: string) => string = (f) => f,
  { safeMode = true }: { safeMode?: boolean } = {},
): { what: string; steps: string[] } {
  const db = name(report.file);
  const recovered = name(path.join(path.dirname(report.file), 'recovered.db'));
  const source = report.copy ? name(report.copy) : db;
  const what =
    `Studio's database ${db} is damaged (SQLite reports: ${report.problems.join('; ')}), ` +
    (safeMode ? 'so Studio started in safe mode: nothing runs and nothing is written until the database is restored. ' : 'so Studio cannot start. ') +
    (report.copy
      ? `A copy of the damaged file was kept as ${name(report.copy)}; Studio never overwrites it.`
      : `No copy of the damaged file could be made (${report.copyError ?? 'unknown error'}): copy ${db} somewhere safe before changing anything.`);
  const steps = [
    'Stop Studio.',
    `To keep what can still be read, use SQLite's command-line tool: sqlite3 ${source} .recover | sqlite3 ${recovered} — then put ${recovered} in place of ${db} and delete ${db}-wal and ${db}-shm.`,
    `Or start over with an empty database: move ${db}, ${db}-wal and ${db}-shm out of the way; Studio creates a new one. ` +
      'The job history, the download queue, the gallery index and settings changed inside Studio (such as an API key set on the Settings page) are lost; ' +
      'outputs, models, catalogs, presets and workflows are files and stay.',
    'Start Studio again.',
  ];
  return { what, steps };
}
