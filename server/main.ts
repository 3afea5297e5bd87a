/**
 * The headless entry point (`npm start`): read the config, start Studio, print how to reach it,
 * and shut down gracefully on SIGINT/SIGTERM. A damaged database starts the safe mode instead
 * (http/safe-mode.ts); any other startup failure prints what went wrong with which file and the
 * fix, while its stack trace goes to the log.
 */
import path from 'node:path';
import { loadConfig, MIN_LAN_KEY_LENGTH, type Config } from './config.js';
import { DatabaseCorruptError } from './db/database-check.js';
import { describeDamagedDatabase } from './db/restore-steps.js';
import { SafeMode } from './http/safe-mode.js';
import { createFileLogger } from './logging.js';
import { relaunchSelf } from './process/relaunch.js';
import { describeStartFailure } from './start-failure.js';
import { Studio } from './studio.js';

/** Known once the configuration loaded: where the log of a failed start goes. */
let config: Readonly<Config> | null = null;

async function main(): Promise<void> {
  const loaded = await loadConfig();
  config = loaded;
  let studio: Studio;
  try {
    studio = Studio.create(loaded, { console: true, relaunch: () => relaunchSelf(() => studio.stop()) });
  } catch (err) {
    if (err instanceof DatabaseCorruptError) return startSafeMode(loaded, err);
    throw err;
  }
  stopOnSignals(() => studio.stop());

  await studio.start();
  const lan = loaded.host !== '127.0.0.1' && loaded.host !== '::1' && loaded.host !== 'localhost';
  console.log('');
  console.log(`  Studio ${loaded.version} is running: ${localUrl(loaded, studio.port)}`);
  console.log(`  Bound to ${loaded.host}:${studio.port} (${lan ? 'reachable from the network' : 'this machine only'})${loaded.tls ? ', HTTPS' : ''}`);
  console.log(`  Data directory: ${loaded.paths.root}`);
  console.log(`  Engine: ${loaded.engine.mode} (${loaded.engine.modeReason}) on port ${loaded.engine.port}`);
  if (loaded.loopbackReason === 'default-key') {
    console.log(`  Sign in with the API key "${loaded.apiKey}" (the built-in default).`);
    console.log(`  LAN access is off while the default key is in use: set API_KEY to a random secret of ${MIN_LAN_KEY_LENGTH}+ characters to open it.`);
  } else if (loaded.loopbackReason === 'short-key') {
    console.log(`  Sign in with your API_KEY. LAN access is off: the key is shorter than ${MIN_LAN_KEY_LENGTH} characters.`);
  } else {
    console.log('  Sign in with your API_KEY.');
  }
  console.log('');
}

/** The database is damaged: serve the safe-mode pages until Studio is stopped, and say why on the console. */
async function startSafeMode(loaded: Readonly<Config>, problem: DatabaseCorruptError): Promise<void> {
  // The console gets the explanation below; the log also gets the error with its stack.
  const logger = createFileLogger(loaded.paths.logs, 'server', { console: false });
  const safe = await SafeMode.start({ config: loaded, problem, logger });
  stopOnSignals(() => safe.stop());
  const { what, steps } = describeDamagedDatabase(safe.report);
  console.error('');
  console.error(`  Studio ${loaded.version} started in SAFE MODE: ${localUrl(loaded, safe.port)} explains what is wrong.`);
  console.error(`  ${what}`);
  console.error('  How to restore:');
  steps.forEach((step, i) => console.error(`    ${i + 1}. ${step}`));
  console.error(`  Log: ${path.join(loaded.paths.logs, 'server.log')}`);
  console.error('');
}

function stopOnSignals(stop: () => Promise<void>): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      console.error(`${signal} again: exiting now`);
      process.exit(1);
    }
    console.log(`${signal}: stopping Studio…`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('Shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function localUrl(loaded: Readonly<Config>, port: number): string {
  const shown = loaded.host === '0.0.0.0' || loaded.host === '::' ? '127.0.0.1' : loaded.host;
  return `${loaded.tls ? 'https' : 'http'}://${shown}:${port}`;
}

main().catch((err: unknown) => {
  console.error(`Studio cannot start: ${describeStartFailure(err, config?.paths.dbFile)}`);
  if (config) {
    // The stack trace is for whoever reads the log, not for the console.
    const logFile = path.join(config.paths.logs, 'server.log');
    try {
      createFileLogger(config.paths.logs, 'server', { console: false }).error('Studio could not start', err);
      console.error(`The full error is in ${logFile}`);
    } catch {
      // The log folder itself may be what failed: the message above is all there is.
    }
  }
  // Let the log's file transport flush before exiting.
  setTimeout(() => process.exit(1), 100);
});
