/**
 * The client id Studio submits prompts with, kept in `STUDIO_DIR/jobs/engine-client-id` so it
 * survives restarts. The engine routes a prompt's progress and completion events to the socket
 * that carries the id the prompt was submitted with: with a fresh id per boot, a Studio that
 * restarted mid-job would only learn the outcome from the slow `/history` poll, with no live
 * progress in between.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VALID_ID = /^studio-[0-9a-f-]{36}$/;

/** The persisted engine client id, created (atomically) on first boot or when the file is damaged. */
export function loadEngineClientId(file: string): string {
  try {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (VALID_ID.test(stored)) return stored;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = `studio-${crypto.randomUUID()}`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${id}\n`);
  fs.renameSync(tmp, file);
  return id;
}
