/**
 * One managed engine per GPU of this box (`ENGINE_GPUS=0,1`): the local engine runs on the first
 * GPU, and each further GPU gets an engine of its own, on `ENGINE_PORT + n` with
 * `CUDA_VISIBLE_DEVICES` set to it. They share Studio's input, output and model folders (one
 * download serves all) but each keeps its own temporary folder, which the engine empties at start.
 */
import path from 'node:path';
import type { Config } from '../../config.js';
import type { Logger } from '../../logging.js';
import { engineAvailability } from '../engine-availability.js';
import { EngineClient } from '../engine.client.js';
import { EngineProcess } from '../engine-process.js';
import { EngineSocket } from '../engine-socket.js';
import { PoolEngine } from './pool-engine.js';

/** The environment of the engine on `gpu`: the GPU it may see. */
export function gpuEnv(env: NodeJS.ProcessEnv | undefined, gpu: number): NodeJS.ProcessEnv {
  return { ...(env ?? process.env), CUDA_VISIBLE_DEVICES: String(gpu) };
}

/** The configuration an extra GPU engine runs with: its own port and engine folder. */
export function gpuEngineConfig(config: Readonly<Config>, gpu: number, place: number): Config {
  return {
    ...config,
    engine: { ...config.engine, port: config.engine.port + place },
    paths: { ...config.paths, engine: path.join(config.paths.engine, `gpu${gpu}`) },
  };
}

/** The pool members of the GPUs after the first (an external engine is someone else's: none). */
export function gpuEngines(config: Readonly<Config>, context: { clientId: string; logger: Logger }): PoolEngine[] {
  const { gpus, mode } = config.engine;
  if (gpus.length < 2) return [];
  if (mode === 'external') {
    context.logger.warn('ENGINE_GPUS is ignored: the engine is external (Studio starts no engine of its own)');
    return [];
  }
  return gpus.slice(1).map((gpu, i) => {
    const id = `gpu${gpu}`;
    const process = new EngineProcess({ config: gpuEngineConfig(config, gpu, i + 1), logger: context.logger, env: gpuEnv(config.childEnv, gpu), logName: `engine-${id}.log`, name: `engine ${id}` });
    const client = new EngineClient({ baseUrl: process.url, availability: engineAvailability(process) });
    const socket = new EngineSocket({ baseUrl: process.url, clientId: context.clientId, logger: context.logger, engineUp: () => process.state.status === 'running' });
    return new PoolEngine({ id, name: `GPU ${gpu}`, kind: 'gpu', url: process.url, client, socket, health: process, sharesFolders: () => true, owned: true, logger: context.logger });
  });
}
