/**
 * Job locks: recorded when a job is accepted (in the background: a model file's first hash may
 * take a while; the outputs' metadata waits for it), read for the job page and the job package,
 * and compared with this Studio: each difference with what Studio can do about it.
 */
import crypto from 'node:crypto';
import type { ApiGraph } from '../engine/engine-graph.js';
import type { Logger } from '../logging.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { DifferenceFix, JobLock, LockDifference } from '../contracts/provenance.contract.js';
import type { Environment } from './environment.js';
import { modelRefs } from './graph-facts.js';
import type { LockStore } from './lock.store.js';

export interface LockServiceDeps {
  store: LockStore;
  environment: Environment;
  studioVersion: string | null;
  /** The installed workflow's version (null: not installed here). */
  workflowVersion(id: string): Promise<string | number | null>;
  /** The catalog's entry for a model file: its recorded SHA-256 (null: none recorded); undefined when not catalogued. */
  catalogSha256(file: string): string | null | undefined;
  logger: Logger;
}

/** How long the outputs' metadata waits for a lock still being recorded. */
const LOCK_WAIT_MS = 120_000;

export class LockService {
  private readonly pending = new Map<string, Promise<JobLock | null>>();

  constructor(private readonly deps: LockServiceDeps) {}

  /** Record the lock of an accepted job (in the background). */
  record(job: JobRecord, graph: ApiGraph): void {
    const work = this.build(job, graph)
      .then((lock) => {
        this.deps.store.put(lock);
        return lock;
      })
      .catch((err: unknown) => {
        this.deps.logger.warn(`no lock recorded for job ${job.prompt_id}: ${(err as Error).message}`);
        return null;
      })
      .finally(() => this.pending.delete(job.prompt_id));
    this.pending.set(job.prompt_id, work);
  }

  /** The job's lock (null: none recorded). */
  get(promptId: string): JobLock | null {
    return this.deps.store.get(promptId);
  }

  /** The lock, waiting (bounded) for one still being recorded. */
  async settled(promptId: string): Promise<JobLock | null> {
    const pending = this.pending.get(promptId);
    if (pending) await Promise.race([pending, new Promise((r) => setTimeout(r, LOCK_WAIT_MS).unref())]);
    return this.get(promptId);
  }

  async build(job: JobRecord, graph: ApiGraph): Promise<JobLock> {
    const env = await this.deps.environment.current();
    const models: JobLock['models'] = [];
    for (const ref of modelRefs(graph)) {
      const here = await this.deps.environment.model(ref);
      models.push({ folder: ref.folder, file: ref.file, sha256: here?.sha256 ?? null, size: here?.size ?? null });
    }
    const version = job.workflow_id ? await this.deps.workflowVersion(job.workflow_id).catch(() => null) : null;
    return {
      lock_version: 1,
      prompt_id: job.prompt_id,
      recorded_at: new Date().toISOString(),
      studio: { version: this.deps.studioVersion },
      engine: env.engine,
      node_packages: env.packages,
      python: env.python,
      models,
      workflow: { id: job.workflow_id, name: job.workflow_name, version },
      params: job.params,
      seeds: job.seeds,
      graph_sha256: crypto.createHash('sha256').update(JSON.stringify(graph)).digest('hex'),
    };
  }

  /** How this Studio differs from what `lock` ran on (empty: the same). */
  async compare(lock: JobLock): Promise<LockDifference[]> {
    const env = await this.deps.environment.current(0);
    const out: LockDifference[] = [];
    const anyway: DifferenceFix = { action: 'run_anyway', label: 'Run anyway' };
    if (lock.engine.version !== env.engine.version || (lock.engine.commit && env.engine.commit && lock.engine.commit !== env.engine.commit)) {
      out.push({ kind: 'engine', what: 'engine', here: describeEngine(env.engine), there: describeEngine(lock.engine), fix: [anyway] });
    }
    for (const pkg of lock.node_packages) {
      const here = env.packages.find((p) => p.name === pkg.name);
      if (!here || here.disabled !== pkg.disabled) {
        const install: DifferenceFix[] = pkg.repo && pkg.commit ? [{ action: 'install_node', label: `Install ${pkg.name} at ${pkg.commit.slice(0, 7)}`, request: { method: 'POST', path: '/api/admin/nodes/install', body: { url: pkg.repo, commit: pkg.commit } } }] : [];
        out.push({ kind: 'node_package_missing', what: pkg.name, here: here ? 'disabled' : null, there: pkg.commit ?? 'installed', fix: [...install, anyway] });
      } else if (pkg.commit && here.commit !== pkg.commit) {
        const update: DifferenceFix = { action: 'update_node', label: `Put ${pkg.name} at ${pkg.commit.slice(0, 7)}`, request: { method: 'POST', path: `/api/admin/nodes/${encodeURIComponent(pkg.name)}/update`, body: { commit: pkg.commit } } };
        out.push({ kind: 'node_package', what: pkg.name, here: here.commit, there: pkg.commit, fix: [update, anyway] });
      }
    }
    if (lock.python.packages_sha256 && env.python.packages_sha256 && lock.python.packages_sha256 !== env.python.packages_sha256) {
      out.push({ kind: 'python', what: "the engine's Python packages", here: `${env.python.packages} packages (${env.python.packages_sha256.slice(0, 12)})`, there: `${lock.python.packages} packages (${lock.python.packages_sha256.slice(0, 12)})`, fix: [anyway] });
    }
    for (const model of lock.models) {
      const here = await this.deps.environment.model(model).catch(() => null);
      if (here && (!model.sha256 || here.sha256 === model.sha256)) continue;
      const catalogued = this.deps.catalogSha256(model.file);
      // The catalog's file is the one the job used when its recorded hash matches (or records none).
      const fromCatalog = catalogued !== undefined && (!model.sha256 || !catalogued || catalogued === model.sha256);
      const download: DifferenceFix[] = fromCatalog ? [{ action: 'download_model', label: `Download ${model.file} from the catalog`, request: { method: 'POST', path: `/api/admin/models/download/${encodeURIComponent(model.file)}` } }] : [];
      out.push({ kind: here ? 'model_hash' : 'model_missing', what: `${model.folder}/${model.file}`, here: here ? here.sha256 : null, there: model.sha256, fix: [...download, anyway] });
    }
    const version = lock.workflow.id ? await this.deps.workflowVersion(lock.workflow.id).catch(() => null) : null;
    if (lock.workflow.id && String(version) !== String(lock.workflow.version)) {
      out.push({ kind: 'workflow', what: lock.workflow.name ?? lock.workflow.id, here: version === null ? null : String(version), there: lock.workflow.version === null ? null : String(lock.workflow.version), fix: version === null ? [] : [anyway] });
    }
    return out;
  }
}

function describeEngine(engine: JobLock['engine']): string | null {
  if (!engine.version && !engine.commit) return null;
  return [engine.version, engine.commit ? `(${engine.commit.slice(0, 10)})` : null].filter(Boolean).join(' ');
}
