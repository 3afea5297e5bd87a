/**
 * Proving an engine works before it becomes Studio's: it is started managed on a port of its own
 * (the engine in use keeps running and serving), must answer, and must run a smoke prompt that
 * needs no model weights (an empty image into a preview). Only then may Studio switch to it.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import { EngineClient } from '../engine/engine.client.js';
import { EngineProcess } from '../engine/engine-process.js';
import type { Logger } from '../logging.js';
import { sleep } from '../process/sleep.js';
import { InstallError } from './engine-installer.js';
import type { SwitchTarget } from './engine-switch.js';
import { freePort } from '../process/free-port.js';

/** Two nodes every engine release has: nothing to download, a second or two even on a CPU. */
const SMOKE_PROMPT = {
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color: 0 } },
  '2': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
} as const;

/** Start `candidate` on a free port, run the smoke prompt, stop it; throws `InstallError` with the engine's own words. */
export async function proveEngine(candidate: Pick<SwitchTarget, 'dir' | 'python' | 'extraModelDirs'>, deps: { config: Readonly<Config>; logger: Logger; signal: AbortSignal; line(text: string): void }): Promise<void> {
  const port = await freePort();
  const { config } = deps;
  // Boot plus smoke prompt.
  const timeoutMs = config.setup.timeouts.proveMs;
  const trial: Config = {
    ...config,
    engine: { ...config.engine, mode: 'managed', dir: candidate.dir, python: candidate.python, port, extraModelDirs: candidate.extraModelDirs },
    // Its own temporary folder and log: the engine in use keeps its own.
    paths: { ...config.paths, engine: path.join(config.paths.engine, '.trial'), logs: path.join(config.paths.logs, 'engine-trial') },
  };
  const engine = new EngineProcess({ config: trial, logger: deps.logger, env: config.childEnv, supervisorOverrides: { readyTimeoutMs: timeoutMs, maxRestarts: 0 } });
  const deadline = Date.now() + timeoutMs;
  const stopOnCancel = () => void engine.stop();
  deps.signal.addEventListener('abort', stopOnCancel, { once: true });
  deps.line(`starting the engine on port ${port} to prove it works (${candidate.dir})`);
  try {
    try {
      await engine.start();
    } catch (err) {
      if (deps.signal.aborted) throw new InstallError('Cancelled', true);
      const said = engine.state.stderrTail.filter((l) => l.trim()).slice(-4).join(' / ');
      throw new InstallError(`The engine did not start: ${engine.state.lastError ?? String(err)}${said ? ` — it said: ${said}` : ''}`);
    }
    deps.line('the engine answers; running the smoke prompt (empty image → preview)');
    const client = new EngineClient({ baseUrl: engine.url, timeoutMs: 30_000 });
    let promptId: string;
    try {
      promptId = (await client.submitPrompt({ prompt: SMOKE_PROMPT as never, client_id: 'studio-setup-proof' })).prompt_id;
    } catch (err) {
      throw new InstallError(`The engine refused the smoke prompt: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (;;) {
      if (deps.signal.aborted) throw new InstallError('Cancelled', true);
      const entry = await client.history(promptId).catch(() => null);
      if (entry?.status?.completed || entry?.status?.status_str) {
        const images = (entry.outputs['2'] as { images?: unknown[] } | undefined)?.images ?? [];
        if (entry.status.status_str !== 'success' || images.length === 0) {
          const error = entry.status.messages?.find(([type]) => type === 'execution_error')?.[1] as { exception_message?: string } | undefined;
          throw new InstallError(`The smoke prompt failed in the engine: ${error?.exception_message ?? entry.status.status_str ?? 'no image came out'}`);
        }
        deps.line('smoke prompt done: the engine works');
        return;
      }
      if (Date.now() > deadline) throw new InstallError(`The smoke prompt did not finish within ${Math.round(timeoutMs / 1000)} s`);
      await sleep(300, deps.signal).catch(() => undefined);
    }
  } finally {
    deps.signal.removeEventListener('abort', stopOnCancel);
    await engine.stop().catch((err: unknown) => deps.logger.warn(`trial engine did not stop cleanly: ${String(err)}`));
  }
}

