/**
 * The headless entry point (`npm start`): read the config, start Studio, print how to reach it,
 * and shut down gracefully on SIGINT/SIGTERM.
 */
import { ConfigError, loadConfig, MIN_LAN_KEY_LENGTH } from './config.js';
import { DatabaseTooNewError } from './db/database.js';
import { relaunchSelf } from './process/relaunch.js';
import { Studio } from './studio.js';

async function main(): Promise<void> {
  const config = await loadConfig();
  const studio: Studio = Studio.create(config, { console: true, relaunch: () => relaunchSelf(() => studio.stop()) });
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      console.error(`${signal} again: exiting now`);
      process.exit(1);
    }
    console.log(`${signal}: stopping Studio…`);
    studio.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('Shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  await studio.start();
  const shown = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const scheme = config.tls ? 'https' : 'http';
  const lan = config.host !== '127.0.0.1' && config.host !== '::1' && config.host !== 'localhost';
  console.log('');
  console.log(`  Studio ${config.version} is running: ${scheme}://${shown}:${studio.port}`);
  console.log(`  Bound to ${config.host}:${studio.port} (${lan ? 'reachable from the network' : 'this machine only'})${config.tls ? ', HTTPS' : ''}`);
  console.log(`  Data directory: ${config.paths.root}`);
  console.log(`  Engine: ${config.engine.mode} (${config.engine.modeReason}) on port ${config.engine.port}`);
  if (config.loopbackReason === 'default-key') {
    console.log(`  Sign in with the API key "${config.apiKey}" (the built-in default).`);
    console.log(`  LAN access is off while the default key is in use: set API_KEY to a random secret of ${MIN_LAN_KEY_LENGTH}+ characters to open it.`);
  } else if (config.loopbackReason === 'short-key') {
    console.log(`  Sign in with your API_KEY. LAN access is off: the key is shorter than ${MIN_LAN_KEY_LENGTH} characters.`);
  } else {
    console.log('  Sign in with your API_KEY.');
  }
  console.log('');
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DatabaseTooNewError) {
    console.error(`Studio cannot start: ${err.message}`);
  } else if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    console.error(`Studio cannot start: port ${(err as { port?: number }).port ?? ''} is already in use (set STUDIO_PORT).`);
  } else {
    console.error('Studio cannot start:', err);
  }
  process.exit(1);
});
