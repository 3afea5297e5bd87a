/**
 * Headless restart: stop this Studio, start the same program again with the same arguments,
 * then exit. Under `npm start` that program is `scripts/start.mjs`, so the replacement also
 * recompiles an updated `server/`.
 */
import { spawn } from 'node:child_process';

/** Stop, spawn the replacement and exit (never returns). */
export async function relaunchSelf(stop: () => Promise<void>, exit: (code: number) => never = process.exit): Promise<never> {
  // Stopped first: the replacement binds the same port, and the WAL is checkpointed on stop.
  await stop();
  // No `env` option on purpose: the replacement is Studio itself and needs Studio's whole
  // environment (API_KEY, tokens), unlike third-party children, which get the allowlist.
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { cwd: process.cwd(), stdio: 'inherit' });
  child.unref();
  return exit(0);
}
