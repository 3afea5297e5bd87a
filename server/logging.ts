/**
 * Server logging. One small interface so services can log without knowing where it goes;
 * `createFileLogger` writes through electron-log (the same library the desktop shell uses) into
 * `STUDIO_DIR/logs/<name>.log`, rotated by size.
 */
import log from 'electron-log/node';
import fs from 'node:fs';
import path from 'node:path';

/**
 * How electron-log writes log files: owner-only (0600), like the database and `events.jsonl`.
 * Logs carry addresses, paths and error details; electron-log's own default is 0666 (less umask).
 */
export const PRIVATE_LOG_WRITE = { flag: 'a', mode: 0o600, encoding: 'utf8' } as const;

/** A log file made earlier with a looser mode gets 0600 too. */
export function tightenLogMode(file: string): void {
  if (process.platform === 'win32') return;
  try {
    fs.chmodSync(file, 0o600);
  } catch {
    // Not there yet: electron-log creates it with PRIVATE_LOG_WRITE's mode.
  }
}

export interface Logger {
  debug(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  error(message: string, ...rest: unknown[]): void;
}

export interface FileLoggerOptions {
  /** Also print to the console (the headless server does; tests do not). */
  console?: boolean;
  /** Rotate when the file passes this size (electron-log keeps one `.old.log`). */
  maxBytes?: number;
}

/** A logger writing to `<logsDir>/<name>.log`. */
export function createFileLogger(logsDir: string, name: string, options: FileLoggerOptions = {}): Logger {
  const logger = log.create({ logId: `studio-${name}-${logsDir}` });
  const file = path.join(logsDir, `${name}.log`);
  logger.transports.file.resolvePathFn = () => file;
  logger.transports.file.writeOptions = { ...PRIVATE_LOG_WRITE };
  tightenLogMode(file);
  logger.transports.file.maxSize = options.maxBytes ?? 5 * 1024 * 1024;
  logger.transports.file.level = 'debug';
  logger.transports.console.level = options.console === false ? false : 'info';
  return logger.scope(name);
}

/** A logger that drops everything (unit tests). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
