/**
 * CLI of the stand-in engine (`npm run standin`, or spawned by Studio's engine supervisor).
 * Flags mirror the engine's own; missing ones come from Studio's config. Prints one line once
 * listening, and exits 0 on SIGTERM / SIGINT after closing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import type { Logger } from '../logging.js';
import { parseFlags } from './cli-flags.util.js';
import { ENGINE_MODEL_FOLDERS } from '../engine/extra-model-paths.js';
import { modelFoldersFromYaml, modelFoldersUnder } from './file-lists.store.js';
import { startStandinEngine, type StandinEngine } from './standin.server.js';

/** Exit with an error after this long if closing hangs (a stuck socket must not block shutdown). */
const CLOSE_DEADLINE_MS = 5_000;
/**
 * An orphan (its Studio was killed) keeps working like a real engine's orphan — which has no parent
 * watch at all — and ends once its queue has been empty this long: the next Studio reads its
 * history before ending it (`engine/engine-orphan.ts`), and a test run leaves no process behind.
 */
const ORPHAN_LINGER_MS = 8_000;

const consoleLogger: Logger = {
  debug() {},
  info: (message, ...rest) => console.log(message, ...rest),
  warn: (message, ...rest) => console.warn(message, ...rest),
  error: (message, ...rest) => console.error(message, ...rest),
};

async function main(): Promise<void> {
  // Its Studio killed, the pipes it logs to are closed: like the engine, it keeps working (EPIPE is not fatal).
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  const flags = parseFlags(process.argv.slice(2), (m) => consoleLogger.warn(m));
  // No probe: the stand-in must not decide it is "external" because of itself.
  const config = await loadConfig(process.env, { probeEngine: async () => false });
  const inputDir = path.resolve(flags.inputDir ?? config.paths.assetsInput);
  const outputDir = path.resolve(flags.outputDir ?? config.paths.assetsOutput);
  fs.mkdirSync(inputDir, { recursive: true });
  fs.mkdirSync(outputDir, { recursive: true });
  // Like the engine: its own models folder (here Studio's), then every extra_model_paths file.
  const modelFolders = modelFoldersUnder(config.paths.models, ENGINE_MODEL_FOLDERS);
  for (const file of flags.extraModelPaths ?? []) {
    for (const [name, dirs] of modelFoldersFromYaml(file)) modelFolders.set(name, [...new Set([...(modelFolders.get(name) ?? []), ...dirs])]);
  }
  const engine: StandinEngine = await startStandinEngine({
    host: flags.host,
    port: flags.port ?? config.engine.port,
    inputDir,
    outputDir,
    tempDir: flags.tempDir,
    stepMs: flags.stepMs ?? config.engine.standinStepMs,
    objectInfoFile: flags.objectInfo ?? config.engine.standinObjectInfo,
    modelFolders,
    nodeMs: flags.nodeMs ?? config.engine.standinNodeMs,
    allowedHosts: config.allowedHosts,
    resourcesDir: flags.resourcesDir,
    customNodesDir: flags.customNodesDir,
    python: flags.python,
    previewMethod: flags.previewMethod,
    logger: consoleLogger,
  });
  console.log(`Stand-in engine listening on ${engine.url}`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    consoleLogger.info(`stand-in: ${signal}, closing`);
    setTimeout(() => process.exit(1), CLOSE_DEADLINE_MS).unref();
    engine.close().then(
      () => process.exit(0),
      (err: unknown) => {
        consoleLogger.error('stand-in: close failed', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (flags.parentPid) watchParent(flags.parentPid, () => lingerThenStop(engine, () => stop('SIGTERM')));
}

/** Work off the queue, then stop once it has been empty for ORPHAN_LINGER_MS. */
function lingerThenStop(engine: StandinEngine, onIdle: () => void): void {
  let idleSince = Date.now();
  const timer = setInterval(() => {
    if (engine.queueRemaining() > 0) idleSince = Date.now();
    else if (Date.now() - idleSince >= ORPHAN_LINGER_MS) {
      clearInterval(timer);
      onIdle();
    }
  }, 250);
  timer.unref();
}

/** Poll the parent: a supervisor killed with SIGKILL never sends us SIGTERM. */
function watchParent(pid: number, onGone: () => void): void {
  const timer = setInterval(() => {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') {
        clearInterval(timer);
        consoleLogger.info(`stand-in: parent ${pid} is gone; working off the queue, then stopping`);
        onGone();
      }
    }
  }, 1000);
  timer.unref();
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `stand-in: ${err.message}` : err);
  process.exit(1);
});
