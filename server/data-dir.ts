/**
 * Creates the data directory layout on boot and keeps the session secret: 48 random bytes,
 * created once with mode 0600 and reused, so sessions survive restarts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DataPaths } from './config.js';

const SECRET_BYTES = 48;

/** Create every directory of the layout (idempotent). */
export function ensureDataDir(paths: DataPaths): void {
  for (const dir of [
    paths.root,
    paths.db,
    paths.assetsInput,
    paths.assetsOutput,
    paths.jobs,
    paths.workflows,
    paths.catalogs,
    paths.models,
    paths.llmModels,
    paths.presets,
    paths.gallery,
    paths.logs,
    paths.engine,
  ]) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  // The data directory holds the session secret, tokens and the database: Studio's user only.
  if (process.platform !== 'win32') fs.chmodSync(paths.root, 0o700);
}

/** The persisted session secret, created on first boot. */
export function loadSessionSecret(file: string): Buffer {
  try {
    const existing = fs.readFileSync(file);
    if (existing.length >= 32) {
      if (process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
      return existing;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = crypto.randomBytes(SECRET_BYTES);
  const tmp = path.join(path.dirname(file), `.session_secret.${process.pid}.tmp`);
  fs.writeFileSync(tmp, secret, { mode: 0o600 });
  fs.renameSync(tmp, file);
  return secret;
}
