/**
 * The shared infrastructure every module is given: the data directory, the log, the database, the
 * event bus and the folder uploads are received in. The composition root opens it before it builds any module and closes it after
 * the last one stopped; the order inside each step is what the database and the bus need.
 */
import path from 'node:path';
import type { Config } from './config.js';
import { ensureDataDir } from './config/data-dir.js';
import { checkpoint, openDatabase, type Db } from './db/database.js';
import { EventBus } from './events/event-bus.js';
import { Uploads } from './http/uploads.js';
import { createFileLogger, type Logger } from './logging.js';

export interface Infrastructure {
  logger: Logger;
  db: Db;
  events: EventBus;
  uploads: Uploads;
}

/** Create the data directory's layout, open the log (unless one is given), the database, the event bus and the uploads folder. */
export function openInfrastructure(config: Readonly<Config>, options: { logger?: Logger; console?: boolean }): Infrastructure {
  ensureDataDir(config.paths);
  const logger = options.logger ?? createFileLogger(config.paths.logs, 'server', { console: options.console ?? true });
  if (config.studioDirFallbackFrom) logger.warn(`${config.studioDirFallbackFrom} could not be created; using ${config.paths.root} for Studio's data`);
  const db = openDatabase(config.paths.dbFile);
  const events = new EventBus({ file: config.paths.eventsFile, db, logger });
  events.load();
  return { logger, db, events, uploads: new Uploads(path.join(config.paths.root, 'tmp', 'uploads')) };
}

/** Close the bus, then fold the database's WAL into it (a failed checkpoint is logged) and close it. */
export function closeInfrastructure({ logger, db, events }: Pick<Infrastructure, 'logger' | 'db' | 'events'>): void {
  events.close();
  try {
    checkpoint(db);
  } catch (err) {
    logger.warn('WAL checkpoint failed', err);
  }
  db.close();
}
