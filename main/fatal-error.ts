/**
 * Turns a startup failure into words for the error dialog (instead of a blank window).
 */
import { ConfigError } from '../server/config.js';
import { DatabaseTooNewError } from '../server/db/database.js';

/** Title and message for `dialog.showErrorBox`, naming the log file. */
export function describeStartupError(err: unknown, logFile: string): { title: string; message: string } {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  let what: string;
  if (err instanceof ConfigError) what = `The configuration is invalid: ${err.message}`;
  else if (err instanceof DatabaseTooNewError) what = err.message;
  else if (code === 'EADDRINUSE') what = `Studio's port ${(err as { port?: number }).port ?? ''} is already in use (another Studio, or set STUDIO_PORT).`;
  else if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    what = `The data directory is not writable (${(err as NodeJS.ErrnoException).path ?? 'STUDIO_DIR'}). Set STUDIO_DIR to a folder you can write.`;
  } else what = err instanceof Error ? err.message : String(err);
  return { title: 'Studio could not start', message: `${what}\n\nDetails are in the log:\n${logFile}` };
}
