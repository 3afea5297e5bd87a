/**
 * A catalog from the repository merged with the one in use: the repository's entries and
 * categories win, and entries only the local catalog has (added by the user from the model hub,
 * imported) are kept in their category, so an update never forgets what the user added.
 */
import fs from 'node:fs/promises';
import type { CatalogFile, catalogFileSchema } from '../contracts/catalog.contract.js';

/** The merged catalog (remote first, then local-only entries). */
function mergeCatalogs(local: CatalogFile | null, remote: CatalogFile): CatalogFile {
  const merged = structuredClone(remote) as CatalogFile;
  const remoteFiles = new Set(remote.categories.flatMap((c) => c.models.map((m) => m.file)));
  for (const category of local?.categories ?? []) {
    const extra = category.models.filter((m) => !remoteFiles.has(m.file));
    if (extra.length === 0) continue;
    const target = merged.categories.find((c) => c.id === category.id);
    if (target) target.models.push(...extra);
    else merged.categories.push({ ...category, models: extra });
  }
  return merged;
}

/** Read and validate a catalog file; throws naming the file when it is malformed. */
async function readCatalog(file: string, schema: typeof catalogFileSchema): Promise<CatalogFile> {
  let raw: unknown;
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file} cannot be read as JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file} is not a valid catalog: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
  }
  return parsed.data;
}

/** Build the merged catalog of `localFile` and `remoteFile` at `outFile`, validated. */
export async function writeMergedCatalog(localFile: string, remoteFile: string, outFile: string, schema: typeof catalogFileSchema): Promise<void> {
  const remote = await readCatalog(remoteFile, schema);
  const local = await readCatalog(localFile, schema).catch(() => null);
  const merged = mergeCatalogs(local, remote);
  const checked = schema.safeParse(merged);
  if (!checked.success) throw new Error(`merging ${remoteFile} gives an invalid catalog: ${checked.error.issues[0]?.message ?? ''}`);
  await fs.writeFile(outFile, `${JSON.stringify(merged, null, 2)}\n`);
}
