/**
 * The engine pool's routes: `GET /api/admin/engines` (every engine with its status, GPU, current
 * job, jobs done, speed and what it lacks for each workflow), `POST /api/admin/engines` (a ComfyUI
 * by URL, or a Studio agent with its key) and `DELETE /api/admin/engines/{id}` (one added by URL;
 * its jobs go to other engines). Parse and delegate: the pool holds the engines, the queue what
 * they did.
 */
import express from 'express';
import { addEngineBody, engineModelDownloadBody, REMOTE_ENGINE_WARNING, type EngineInfo } from '../../contracts/engines.contract.js';
import type { EventBus } from '../../events/event-bus.js';
import { downloadOnAgent } from '../../engine/pool/agent-downloads.js';
import type { ObjectInfo } from '../../engine/engine-graph.js';
import type { EnginePool } from '../../engine/pool/engine-pool.js';
import type { PoolEngine } from '../../engine/pool/pool-engine.js';
import { validate } from '../../http/errors.js';
import type { JobQueueService } from './job-queue.service.js';

export interface EnginesRouteDeps {
  pool: EnginePool;
  queue: JobQueueService;
  /** Each installed workflow an engine with this node list cannot run. */
  lacksOn: (info: ObjectInfo) => Promise<EngineInfo['lacks']>;
  /** This Studio's catalog: a model file's SHA-256 (null: none recorded; undefined: not catalogued). */
  sha256Of: (file: string) => string | null | undefined;
  events: EventBus;
}

export function enginesRoutes(deps: EnginesRouteDeps): express.Router {
  const router = express.Router();

  router.get('/api/admin/engines', async (_req, res) => {
    res.json({ engines: await Promise.all(deps.pool.list().map((engine) => describe(engine, deps))), warning: REMOTE_ENGINE_WARNING });
  });

  router.post('/api/admin/engines', async (req, res) => {
    const body = validate(addEngineBody, req.body ?? {});
    const engine = await deps.pool.addRemote(body);
    res.status(201).json({ ...(await describe(engine, deps)), warning: REMOTE_ENGINE_WARNING });
  });

  // An agent lacks a model this Studio's catalog has: it downloads it itself, verified by SHA-256.
  router.post('/api/admin/engines/:id/models/download', async (req, res) => {
    const { filename } = validate(engineModelDownloadBody, req.body ?? {});
    const answer = await downloadOnAgent(deps.pool, req.params.id, filename, deps.sha256Of);
    deps.events.emit('engine.model_download', 'info', `Agent ${req.params.id} asked to download ${filename} (${answer.status})`, { engine_id: req.params.id, file: filename, status: answer.status });
    res.json({ engine_id: req.params.id, ...answer });
  });

  router.delete('/api/admin/engines/:id', async (req, res) => {
    await deps.pool.removeRemote(req.params.id);
    res.json({ removed: req.params.id });
  });

  return router;
}

async function describe(engine: PoolEngine, deps: EnginesRouteDeps): Promise<EngineInfo> {
  const [stats, info] = await Promise.all([engine.systemStats(), engine.objectInfo()]);
  const device = stats?.devices[0];
  const slots = deps.queue.state().engines.find((e) => e.id === engine.id);
  const done = deps.queue.stats.of(engine.id);
  const lacks = info ? await deps.lacksOn(info) : [];
  return {
    id: engine.id,
    name: engine.name,
    kind: engine.kind,
    url: engine.url,
    status: engine.status,
    last_error: engine.status === 'online' ? null : engine.lastError,
    gpu: device ? { name: device.name, vram_total: device.vram_total ?? null, vram_free: device.vram_free ?? null } : null,
    current_job: slots?.running ?? null,
    prefetched: slots?.prefetched ?? [],
    jobs_done: done.jobsDone,
    steps_per_second: done.stepsPerSecond === null ? null : Math.round(done.stepsPerSecond * 100) / 100,
    last_checkpoint: done.lastCheckpoint,
    lacks,
    downloadable: engine.agent ? downloadable(lacks, deps.sha256Of) : [],
    removable: engine.kind === 'remote' || engine.kind === 'agent',
  };
}

/** The model files in `lacks` this Studio's catalog has with a SHA-256 (an agent can be asked for them). */
function downloadable(lacks: EngineInfo['lacks'], sha256Of: (file: string) => string | null | undefined): string[] {
  const files = new Set(lacks.flatMap((l) => l.missing).filter((m) => m.startsWith('model ')).map((m) => m.slice('model '.length)));
  return [...files].filter((file) => typeof sha256Of(file) === 'string');
}
