/**
 * An external engine with folders of its own writes a job's outputs where Studio cannot see
 * them, so the job folder (and its ZIP, the assets listing, thumbnails) would stay empty. When
 * the engine's output folder is not Studio's (the shared-folder probe says so), each output of a
 * finished job is streamed from the engine's `/view` into the job folder, in `final/`, `preview/`
 * or `intermediate/` as a shared folder would have it. Files are written to a temp name and renamed.
 * Then, shared folder or not, the outputs get their provenance metadata (`stamp`, given by the
 * provenance capability) from the graph that ran, before the job is marked completed.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isInside } from '../http/contained-path.js';
import type { EngineClient } from '../engine/engine.client.js';
import type { EngineOutputFile } from '../engine/engine-outputs.js';
import type { Logger } from '../logging.js';
import type { JobFolders } from './job-folders.store.js';
import type { JobRecord } from '../contracts/jobs.contract.js';
import type { ApiGraph } from '../engine/engine-graph.js';

/** Writes metadata into the outputs of a finished job's folder (`dir`), made from the graph that ran. */
export type OutputStamp = (job: JobRecord, dir: string, graph: ApiGraph) => Promise<unknown>;

export interface OutputCollectorDeps {
  engine: EngineClient;
  folders: JobFolders;
  /** True when the engine writes into Studio's own output folder (nothing to copy). */
  outputShared: () => boolean;
  stamp?: OutputStamp;
  logger: Logger;
}

export class OutputCollector {
  constructor(private readonly deps: OutputCollectorDeps) {}

  /** Copy `files` of a finished `job` into its folder unless the engine already wrote them there, then stamp them. */
  async collect(job: JobRecord, files: readonly EngineOutputFile[], graph?: ApiGraph): Promise<void> {
    await this.copyAll(job, files);
    if (graph && job.output_dir && files.length > 0 && this.deps.stamp) {
      await this.deps.stamp(job, this.deps.folders.pathOf(job.output_dir), graph).catch((err: unknown) => this.deps.logger.warn(`no provenance metadata in the outputs of ${job.prompt_id}`, err));
    }
  }

  private async copyAll(job: JobRecord, files: readonly EngineOutputFile[]): Promise<void> {
    if (this.deps.outputShared() || !job.output_dir || files.length === 0) return;
    const jobDir = this.deps.folders.pathOf(job.output_dir);
    let copied = 0;
    for (const file of files) {
      const target = this.targetOf(jobDir, job.output_dir, file);
      if (!target) continue;
      try {
        if (await this.copy(file, target)) copied++;
      } catch (err) {
        this.deps.logger.warn(`could not copy ${file.subfolder}/${file.filename} of ${job.prompt_id} from the engine: ${(err as Error).message}`);
      }
    }
    if (copied) this.deps.logger.info(`copied ${copied} output file(s) of ${job.prompt_id} from the engine into ${job.output_dir}`);
  }

  /** Where a file lands: its path under the job folder for redirected outputs, `preview/` for temp files. */
  private targetOf(jobDir: string, jobFolder: string, file: EngineOutputFile): string | null {
    const name = path.basename(file.filename);
    if (!name || name.startsWith('.')) return null;
    const sub = file.subfolder.split('/').filter(Boolean);
    let dir: string;
    if (file.type === 'output' && sub[0] === jobFolder) dir = path.join(jobDir, ...sub.slice(1));
    else if (file.type === 'temp') dir = path.join(jobDir, 'preview');
    else dir = path.join(jobDir, 'final');
    const target = path.join(dir, name);
    return isInside(jobDir, target) ? target : null;
  }

  private async copy(file: EngineOutputFile, target: string): Promise<boolean> {
    if (fs.existsSync(target)) return false;
    const view = await this.deps.engine.viewStream({ filename: file.filename, subfolder: file.subfolder, type: file.type });
    if (!view || view.status !== 200) {
      view?.body.destroy();
      throw new Error(view ? `the engine answered ${view.status}` : 'the engine is unreachable');
    }
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.part`;
    try {
      await pipeline(view.body, fs.createWriteStream(tmp));
      await fsp.rename(tmp, target);
    } catch (err) {
      await fsp.rm(tmp, { force: true });
      throw err;
    }
    return true;
  }
}
