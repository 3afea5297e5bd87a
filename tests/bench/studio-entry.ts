/** The compiled server's entry, as `npm start` runs it, and a bench Studio's environment. */
import path from 'node:path';
import { freePort } from '../helpers/ports.js';

/** What `npm start` runs (scripts/start.mjs): the one-file bundle's entry. */
export function entryOf(root: string): string {
  return path.join(root, 'dist', 'server', 'start.cjs');
}

/** A bench Studio's environment: its own data folder and ports, no engine (an external one at a closed port). */
export async function studioEnv(dir: string): Promise<NodeJS.ProcessEnv> {
  return {
    ...process.env,
    STUDIO_DIR: dir,
    STUDIO_PORT: String(await freePort()),
    STUDIO_HOST: '127.0.0.1',
    API_KEY: 'bench-key-0123456789',
    ENGINE_MODE: 'external',
    ENGINE_PORT: String(await freePort()),
  };
}
