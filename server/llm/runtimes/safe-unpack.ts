/**
 * Unpack a downloaded llama.cpp archive (`.tar.gz` or `.zip`) into its own folder, safely: every
 * entry is checked before it is written (`archive-entries.ts`: nothing lands outside the folder,
 * links are refused, a size cap), the work happens in a temporary folder beside the destination
 * that is renamed into place only when the whole archive passed, and a refused archive leaves
 * nothing behind. The releases ship library aliases (`libllama.so -> libllama.so.0`) as symbolic
 * links; those, and only those (a plain sibling name whose chain ends at a file of the archive),
 * are written as copies of their file, so no link ever exists on disk.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import { checkLink, landingPath, safeParts, UnpackBudget, UnsafeArchiveError } from './archive-entries.js';
import { readTarGz, type ReadEntry } from './tar-reader.js';
import { readZip } from './zip-reader.js';

export { UnsafeArchiveError } from './archive-entries.js';

/** The entries of `archive`, by its name. */
function entriesOf(archive: string): AsyncGenerator<ReadEntry> {
  if (archive.endsWith('.tar.gz') || archive.endsWith('.tgz')) return readTarGz(archive);
  if (archive.endsWith('.zip')) return readZip(archive);
  throw new UnsafeArchiveError(`refused: ${path.basename(archive)} is neither a .tar.gz nor a .zip`);
}

/**
 * Unpack `archive` into `dest` (which must not exist yet), or into `dest` as it is when `into` is
 * set (a companion archive joining a build). Throws `UnsafeArchiveError` for a refused archive.
 */
export async function unpackArchive(archive: string, dest: string, options: { maxBytes: number; into?: boolean }): Promise<void> {
  const work = options.into ? dest : `${dest}.unpacking-${crypto.randomBytes(4).toString('hex')}`;
  const root = path.resolve(work);
  const budget = new UnpackBudget(options.maxBytes);
  const written = new Set<string>();
  const links: Array<{ at: string; target: string; name: string }> = [];
  await fsp.mkdir(root, { recursive: true });
  try {
    for await (const { entry, body } of entriesOf(archive)) {
      const parts = safeParts(entry.name);
      if (parts.length === 0) continue;
      const at = landingPath(root, parts);
      if (entry.kind === 'dir') {
        await fsp.mkdir(at, { recursive: true });
        continue;
      }
      if (entry.kind === 'other') throw new UnsafeArchiveError(`refused: the entry "${entry.name}" is ${entry.linkTarget !== undefined ? `a hard link to "${entry.linkTarget}"` : 'not a plain file or folder'}`);
      if (entry.kind === 'symlink') {
        links.push({ at, target: checkLink(entry), name: entry.name });
        continue;
      }
      budget.take(entry.size);
      await fsp.mkdir(path.dirname(at), { recursive: true });
      await writeFile(at, body(), entry.size, budget, (entry.mode & 0o111) !== 0 || isProgram(parts));
      written.add(at);
    }
    await materialiseLinks(links, written, budget);
    if (!options.into) await fsp.rename(work, dest);
  } catch (err) {
    if (!options.into) await fsp.rm(work, { recursive: true, force: true });
    throw err;
  }
}

/** Windows builds carry no mode bits: `.exe` and `.dll` need none, the rest stays plain. */
function isProgram(parts: string[]): boolean {
  return /\.(exe|dll)$/i.test(parts[parts.length - 1]!);
}

async function writeFile(at: string, body: AsyncIterable<Buffer>, declared: number, budget: UnpackBudget, executable: boolean): Promise<void> {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      try {
        if (seen > declared) budget.more(chunk.length);
        done(null, chunk);
      } catch (err) {
        done(err as Error);
      }
    },
  });
  // 'wx': never write through something already there (a second entry of the same name).
  await pipeline(Readable.from(body), counter, fs.createWriteStream(at, { flags: 'wx', mode: executable ? 0o755 : 0o644 }));
}

/** Each accepted link becomes a copy of the file its chain of sibling names ends at. */
async function materialiseLinks(links: Array<{ at: string; target: string; name: string }>, written: Set<string>, budget: UnpackBudget): Promise<void> {
  const byPath = new Map(links.map((l) => [l.at, l]));
  for (const link of links) {
    let target = path.join(path.dirname(link.at), link.target);
    for (let hops = 0; byPath.has(target) && hops < 8; hops++) target = path.join(path.dirname(target), byPath.get(target)!.target);
    if (!written.has(target)) throw new UnsafeArchiveError(`refused: the link "${link.name}" points at "${link.target}", which is not a file of the archive`);
    const { size, mode } = await fsp.stat(target);
    budget.take(size);
    await fsp.copyFile(target, link.at, fs.constants.COPYFILE_EXCL);
    await fsp.chmod(link.at, mode & 0o777);
  }
}
