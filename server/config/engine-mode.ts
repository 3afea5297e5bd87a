/**
 * How Studio gets its engine. Set explicitly (ENGINE_MODE), or decided at boot: a configured
 * checkout is run, an engine already listening is used, and otherwise the stand-in starts.
 */
import { ConfigError } from './config-error.js';

/** How Studio gets its engine: start the stand-in, start a real one, or connect to one that runs. */
export type EngineMode = 'standin' | 'managed' | 'external';

/** ENGINE_MODE's words: the three modes, and its default that decides at boot. */
export const ENGINE_MODE_CHOICES = ['automatic', 'standin', 'managed', 'external'] as const;

/** The engine's sampler preview methods (`--preview-method`); its own default is none. */
export const PREVIEW_METHODS = ['none', 'auto', 'latent2rgb', 'taesd'] as const;
export type PreviewMethod = (typeof PREVIEW_METHODS)[number];

/** Answers whether an engine already answers on host:port. */
export type EngineProbe = (host: string, port: number) => Promise<boolean>;

/** The mode in force and why (for the startup log). */
export async function chooseEngineMode(
  asked: (typeof ENGINE_MODE_CHOICES)[number],
  engineDir: string | null,
  engine: { host: string; port: number },
  probe: EngineProbe = probeEngine,
): Promise<{ mode: EngineMode; modeReason: string }> {
  let choice: { mode: EngineMode; modeReason: string };
  if (asked !== 'automatic') choice = { mode: asked, modeReason: 'ENGINE_MODE' };
  else if (engineDir) choice = { mode: 'managed', modeReason: 'ENGINE_DIR is set' };
  else if (await probe(engine.host, engine.port)) choice = { mode: 'external', modeReason: `an engine already answers on port ${engine.port}` };
  else choice = { mode: 'standin', modeReason: 'no engine configured' };
  if (choice.mode === 'managed' && !engineDir) throw new ConfigError('ENGINE_MODE=managed needs ENGINE_DIR');
  return choice;
}

/** Whether something answers the engine's `/system_stats` on host:port. */
export async function probeEngine(host: string, port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://${host}:${port}/system_stats`, { signal: AbortSignal.timeout(800) });
    return res.ok;
  } catch {
    return false;
  }
}
