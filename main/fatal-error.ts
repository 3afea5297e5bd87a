/**
 * Turns a startup failure into words for the error dialog (instead of a blank window).
 */
import { ConfigError } from '../server/config.js';
import { DatabaseCorruptError } from '../server/db/database-check.js';
import { DatabaseTooNewError } from '../server/db/database.js';
import { describeDamagedDatabase, reportDamagedDatabase } from '../server/db/restore-steps.js';
import { describeStartFailure } from '../server/start-failure.js';

/** Title and message for `dialog.showErrorBox`, naming the log file. */
export function describeStartupError(err: unknown, logFile: string): { title: string; message: string } {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  let what: string;
  if (err instanceof ConfigError) what = `The configuration is invalid: ${err.message}`;
  else if (err instanceof DatabaseTooNewError) what = err.message;
  else if (err instanceof DatabaseCorruptError) {
    // The desktop has no safe mode: the dialog carries the same report (and a copy is kept).
    const { what: report, steps } = describeDamagedDatabase(reportDamagedDatabase(err), undefined, { safeMode: false });
    what = `${report}\n\nHow to restore:\n${steps.map((step, i) => `${i + 1}. ${step}`).join('\n')}`;
  } else if (code === 'EADDRINUSE') what = `Studio's port ${(err as { port?: number }).port ?? ''} is already in use (another Studio, or set STUDIO_PORT).`;
  else if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    what = `The data directory is not writable (${(err as NodeJS.ErrnoException).path ?? 'STUDIO_DIR'}). Set STUDIO_DIR to a folder you can write.`;
  } else what = describeStartFailure(err);
  return { title: 'Studio could not start', message: `${what}\n\nDetails are in the log:\n${logFile}` };
}
