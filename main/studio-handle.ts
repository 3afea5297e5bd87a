/**
 * The boot path the desktop shell shares with headless runs: load the config with the same
 * rules, start the Studio server in-process, and expose what the shell needs (URLs, engine
 * state, restart, stop). It does not import Electron, so it is tested headlessly.
 */
import os from 'node:os';
import { loadConfig, type Config, type LoadConfigOptions } from '../server/config.js';
import type { EngineState } from '../server/engine/engine-process.js';
import type { Logger } from '../server/logging.js';
import { Studio } from '../server/studio.js';
import type { DesktopUpdater } from './desktop-updater.js';

/** The LLM server as the tray shows it; Studio gains an LLM service in a later issue. */
export interface LlmTrayState {
  status: 'running' | 'stopped' | 'unavailable';
  model: string | null;
}

export interface StudioHandle {
  readonly config: Readonly<Config>;
  readonly studio: Studio;
  /** The URL the window loads (loopback). */
  readonly url: string;
  /** `http://<LAN IPv4>:<port>` when LAN access is on, else null. */
  lanUrl(): string | null;
  engineState(): EngineState;
  onEngineState(listener: (state: EngineState) => void): () => void;
  restartEngine(): Promise<void>;
  llmState(): LlmTrayState;
  stopLlm(): Promise<void>;
  stop(): Promise<void>;
  /** The installed app's updater (null headless and in tests that give none). */
  readonly updater: DesktopUpdater | null;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  configOptions?: LoadConfigOptions;
  logger?: Logger;
  console?: boolean;
  /** Replace the running app (Electron: `app.relaunch()` then quit); used by restart and update. */
  relaunch?: () => void;
  /** The desktop app's updater for this config (its feed is a config value); System shows it. */
  desktopUpdater?: (config: Readonly<Config>) => DesktopUpdater;
}

/** Load the config, start Studio and return its handle. Throws (config, port, database) to the caller. */
export async function startStudio(options: StartOptions = {}): Promise<StudioHandle> {
  const config = await loadConfig(options.env, options.configOptions);
  const updater = options.desktopUpdater?.(config) ?? null;
  const studio = Studio.create(config, { logger: options.logger, console: options.console ?? false, relaunch: options.relaunch, desktopUpdates: updater ?? undefined });
  try {
    await studio.start();
  } catch (err) {
    await studio.stop().catch(() => undefined);
    throw err;
  }
  return {
    config,
    studio,
    url: studio.url,
    lanUrl: () => lanUrl(config, studio.port),
    engineState: () => studio.engine.state,
    onEngineState: (listener) => studio.engine.onStateChange(listener),
    restartEngine: () => studio.engine.restart(),
    llmState: () => ({ status: 'unavailable', model: null }),
    stopLlm: async () => {},
    stop: () => studio.stop(),
    updater,
  };
}

/** The address LAN browsers use, or null while LAN access is off (weak default key). */
export function lanUrl(config: Pick<Config, 'apiKeyIsDefault' | 'host'>, port: number): string | null {
  if (config.apiKeyIsDefault) return null;
  if (config.host !== '0.0.0.0' && config.host !== '::') return config.host.startsWith('127.') ? null : `http://${config.host}:${port}`;
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return `http://${address.address}:${port}`;
    }
  }
  return null;
}
