/**
 * Which of the engine's folders (input, output, temp) are Studio's own folders. Studio starts a
 * stand-in or managed engine with its input and output folders, and an external engine may be
 * pointed at them; whether a folder really is shared is checked, never assumed: each time the
 * engine comes up, Studio writes a marker file with random bytes into each of its folders and
 * asks the engine's `/view` for it. Only a folder whose marker came back byte for byte counts.
 *
 * For a shared folder `GET /api/engine/view` reads the file from disk with the engine's own path
 * rules (the same bytes the engine would send) instead of copying every byte through a second
 * process; every other file, and every file while the engine is not up, still goes through the
 * engine, so "404 when the engine is unreachable" holds.
 *
 * A marker that cannot be written (a full disk) proves nothing either way: the folder counts as
 * not shared for now and the probe runs again a little later, so Studio finds its folders again
 * once space is freed, without waiting for the engine to restart.
 */
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from '../logging.js';
import type { EngineClient } from './engine.client.js';
import type { EngineDirs, FolderType } from './engine-paths.js';
import { resolveViewFile, type ViewQuery, type ViewTarget } from './view-file.js';

const FOLDERS: FolderType[] = ['input', 'output', 'temp'];
const MARKER_BYTES = 32;
/** First wait before probing again after a marker could not be written; doubles up to the cap. */
const RECHECK_FIRST_MS = 15_000;
const RECHECK_MAX_MS = 5 * 60_000;

export interface SharedFoldersDeps {
  engine: Pick<EngineClient, 'viewStream'>;
  /** Studio's folders, as it would hand them to an engine it starts. */
  dirs: EngineDirs;
  logger: Logger;
  /** First wait before a re-probe when a marker could not be written (tests shorten it). */
  recheckMs?: number;
}

type Outcome = 'shared' | 'not_shared' | 'unwritable';

/** See the file comment. */
export class SharedFolders {
  private shared = new Set<FolderType>();
  /** Bumped by every probe and `forget`, so a slow probe cannot overwrite newer knowledge. */
  private generation = 0;
  private recheck: NodeJS.Timeout | null = null;

  constructor(private readonly deps: SharedFoldersDeps) {}

  /** The folders found shared by the last probe (sorted, for logs and tests). */
  get folders(): FolderType[] {
    return FOLDERS.filter((folder) => this.shared.has(folder));
  }

  /** The engine is up (again): check every folder; resolves with the shared ones. */
  probe(): Promise<FolderType[]> {
    this.cancelRecheck();
    return this.run();
  }

  /** The engine went away, or Studio stops: trust nothing until the next probe (none is scheduled). */
  forget(): void {
    this.generation += 1;
    this.shared = new Set();
    this.cancelRecheck();
  }

  /** One probe of every folder; `lastDelayMs` is the wait that led to it (a re-probe). */
  private async run(lastDelayMs?: number): Promise<FolderType[]> {
    const generation = ++this.generation;
    const found = new Set<FolderType>();
    let unwritable = false;
    for (const folder of FOLDERS) {
      const outcome = await this.probeFolder(folder);
      if (outcome === 'shared') found.add(folder);
      if (outcome === 'unwritable') unwritable = true;
    }
    if (generation !== this.generation) return [...found];
    this.shared = found;
    this.deps.logger.info(`engine folders shared with Studio: ${this.folders.join(', ') || 'none'}`);
    if (unwritable) this.scheduleRecheck(lastDelayMs === undefined ? (this.deps.recheckMs ?? RECHECK_FIRST_MS) : Math.min(lastDelayMs * 2, RECHECK_MAX_MS));
    return [...found];
  }

  private scheduleRecheck(delayMs: number): void {
    this.cancelRecheck();
    this.recheck = setTimeout(() => {
      this.recheck = null;
      this.run(delayMs).catch((err: unknown) => this.deps.logger.warn(`shared folder probe failed: ${String(err)}`));
    }, delayMs);
    this.recheck.unref();
  }

  private cancelRecheck(): void {
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = null;
  }

  /** Studio's folder the engine calls `folder`. */
  dirOf(folder: FolderType): string {
    return this.deps.dirs[folder];
  }

  /**
   * The file on Studio's disk that the engine would answer `query` with, or the engine's refusal
   * (400/403); null when the query's folder is not shared (ask the engine).
   */
  resolve(query: ViewQuery): ViewTarget | null {
    if (this.shared.size === 0) return null;
    const target = resolveViewFile(this.deps.dirs, query);
    if ('file' in target && !this.shared.has(target.folder)) return null;
    return target;
  }

  private async probeFolder(folder: FolderType): Promise<Outcome> {
    const dir = this.deps.dirs[folder];
    // A dot name: asset listings and ZIPs skip hidden files, so no one sees it meanwhile.
    const name = `.studio-shared-probe-${randomBytes(8).toString('hex')}`;
    const marker = randomBytes(MARKER_BYTES);
    const file = path.join(dir, name);
    try {
      await fsp.mkdir(dir, { recursive: true });
      await fsp.writeFile(file, marker);
    } catch (err) {
      this.deps.logger.debug(`shared folder probe: cannot write into ${dir}: ${(err as Error).message}`);
      await fsp.rm(file, { force: true }).catch(() => undefined);
      return 'unwritable';
    }
    try {
      const answer = await this.deps.engine.viewStream({ filename: name, type: folder, subfolder: '' });
      if (answer?.status !== 200) {
        answer?.body.destroy();
        return 'not_shared';
      }
      const body = await readAtMost(answer.body, MARKER_BYTES + 1);
      return body !== null && body.equals(marker) ? 'shared' : 'not_shared';
    } catch {
      return 'not_shared';
    } finally {
      await fsp.rm(file, { force: true }).catch(() => undefined);
    }
  }
}

/** The whole body when it is at most `limit` bytes, else null (the rest is not read). */
async function readAtMost(body: Readable, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
