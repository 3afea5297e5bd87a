/**
 * One install of a prebuilt llama.cpp build, start to end: the archive (and its companion) through
 * Studio's download queue with the digest the release publishes, the safe unpack into the build's
 * own folder, the smoke test, and only then a record in the store. Any failure removes the
 * folder and the downloaded archives: a refused build leaves nothing behind.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError } from '../../domain-error.js';
import { sleep } from '../../process/sleep.js';
import type { DownloadStatusEntry } from '../../contracts/downloads.contract.js';
import type { RuntimeJob } from '../../contracts/llm-runtimes.contract.js';
import { sha256Of, type ReleaseAsset, type RuntimeBuild } from './release-assets.js';
import { isPlainName } from './release-source.client.js';
import type { InstalledBuild } from './runtime.store.js';
import { unpackArchive } from './safe-unpack.js';
import { smokeTest, type SmokeResult } from './smoke-test.js';

/** What the install uses of Studio's download queue (its `Downloads` facade). */
export interface RuntimeDownloads {
  enqueue(job: { file: string; kind: 'llm'; finalFile: string; estimatedBytes: number | null }): unknown;
  statusEntries(): Record<string, DownloadStatusEntry>;
  forget(file: string): void;
  cancel(file: string): Promise<boolean>;
}

/** Where a queued archive comes from, as the queue's resolver hands it back. */
export interface PendingArchive {
  url: string;
  sha256: string;
  finalFile: string;
  size: number;
}

export interface InstallDeps {
  runtimesDir: string;
  downloads: RuntimeDownloads;
  /** The archives the download resolver may hand out, by file name. */
  pending: Map<string, PendingArchive>;
  env: NodeJS.ProcessEnv;
  maxUnpackBytes: number;
  smokeTimeoutMs?: number;
}

/** Poll the queue row of `file` until it is done (resolve) or failed (throw its message). */
async function awaitDownload(deps: InstallDeps, file: string, job: RuntimeJob, doneBefore: number): Promise<void> {
  for (;;) {
    const entry = deps.downloads.statusEntries()[file];
    if (!entry) throw new DomainError('rejected', `The download of ${file} was cancelled`);
    job.bytes = doneBefore + entry.bytes_downloaded;
    if (entry.status === 'done') return;
    if (entry.status === 'error') throw new DomainError('rejected', `Download of ${file} failed: ${entry.error ?? 'unknown error'}`);
    await sleep(250);
  }
}

async function fetchArchive(deps: InstallDeps, asset: ReleaseAsset, job: RuntimeJob, doneBefore: number): Promise<string> {
  const sha256 = sha256Of(asset.digest);
  if (!sha256) throw new DomainError('rejected', `The release publishes no SHA-256 digest for ${asset.name}: refused (Studio installs only what it can check)`);
  const finalFile = path.join(deps.runtimesDir, 'downloads', plainName(asset.name));
  await fsp.rm(finalFile, { force: true });
  deps.pending.set(asset.name, { url: asset.url, sha256, finalFile, size: asset.size });
  deps.downloads.forget(asset.name);
  deps.downloads.enqueue({ file: asset.name, kind: 'llm', finalFile, estimatedBytes: asset.size });
  await awaitDownload(deps, asset.name, job, doneBefore);
  return finalFile;
}

/** Find the server program inside an unpacked build (the Linux archives nest it one folder down). */
async function findServerBinary(dir: string, depth = 3): Promise<string | null> {
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  const hit = entries.find((e) => e.isFile() && (e.name === 'llama-server' || e.name === 'llama-server.exe'));
  if (hit) return path.join(dir, hit.name);
  if (depth === 0) return null;
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const found = await findServerBinary(path.join(dir, e.name), depth - 1);
    if (found) return found;
  }
  return null;
}

/** `name` from the release source, refused unless it is one plain file name (never a path). */
function plainName(name: string): string {
  if (!isPlainName(name)) throw new DomainError('rejected', `Refused: "${name.slice(0, 120)}" from the release source is not a plain file name`);
  return name;
}

/** Install `build` of release `tag`; resolves with the record to store, throws with the reason. */
export async function installBuild(deps: InstallDeps, tag: string, build: RuntimeBuild, job: RuntimeJob, reason: string | null): Promise<InstalledBuild> {
  const dir = path.join(deps.runtimesDir, plainName(job.id));
  const archives = [build.asset, ...(build.companion ? [build.companion] : [])];
  job.total = archives.reduce((sum, a) => sum + a.size, 0);
  const files: string[] = [];
  try {
    let doneBefore = 0;
    for (const asset of archives) {
      files.push(await fetchArchive(deps, asset, job, doneBefore));
      doneBefore += asset.size;
    }
    job.phase = 'unpacking';
    await fsp.rm(dir, { recursive: true, force: true });
    await unpackArchive(files[0]!, dir, { maxBytes: deps.maxUnpackBytes });
    const binary = await findServerBinary(dir);
    if (!binary) throw new DomainError('rejected', `${build.asset.name} holds no llama-server program`);
    if (files[1]) await unpackArchive(files[1], path.dirname(binary), { maxBytes: deps.maxUnpackBytes, into: true });
    job.phase = 'testing';
    const smoke = await smokeTest({ binary, env: deps.env, expectGpu: build.backend !== 'cpu', workDir: path.join(deps.runtimesDir, 'smoke'), loadTimeoutMs: deps.smokeTimeoutMs });
    job.log = smoke.log;
    if (!smoke.ok) throw new DomainError('rejected', `${build.variant} build ${tag} failed its smoke test: ${smoke.error}`);
    return recordOf({ id: job.id, tag, variant: build.variant, backend: build.backend, origin: build.asset.name, dir, binary, reason }, smoke);
  } catch (err) {
    await fsp.rm(dir, { recursive: true, force: true });
    throw err;
  } finally {
    for (const asset of archives) {
      deps.pending.delete(asset.name);
      deps.downloads.forget(asset.name);
      await deps.downloads.cancel(asset.name).catch(() => false);
    }
    await Promise.all(archives.filter((a) => isPlainName(a.name)).map((a) => fsp.rm(path.join(deps.runtimesDir, 'downloads', a.name), { force: true })));
  }
}

/** The store record of a build that passed its smoke test. */
export function recordOf(build: Omit<InstalledBuild, 'version' | 'installed_at' | 'devices' | 'gpu_layers'>, smoke: SmokeResult): InstalledBuild {
  return {
    ...build,
    version: smoke.version,
    installed_at: new Date().toISOString(),
    devices: smoke.devices.map((d) => `${d.name}: ${d.description}`),
    gpu_layers: smoke.gpuLayers,
  };
}
