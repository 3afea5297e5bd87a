/**
 * Workflows on disk (`STUDIO_DIR/workflows`): one folder per workflow with `manifest.yaml` and
 * `workflow.json` (static) or `blocks/*.json` (dynamic), plus `index.json`. A broken workflow
 * becomes an entry with `error`; it never breaks the list. A checked entry is kept by folder and
 * the change times, sizes and inodes of its files: listing the workflows again re-reads only what
 * changed (a 14 MB imported graph was parsed again on every list).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { type BlockTemplate, parseBlock } from './block.schema.js';
import { WORKFLOW_ID_PATTERN, parseManifest, type WorkflowManifest } from '../contracts/workflows.contract.js';
import { parseTemplate } from './placeholders.js';
import { templateError } from './workflow-errors.js';
import { notFound } from '../domain-error.js';

export interface WorkflowEntry {
  id: string;
  dir: string;
  /** Present when `manifest.yaml` is valid (also beside an `error` about the graph files). */
  manifest?: WorkflowManifest;
  /** Set when the workflow cannot be used (bad YAML, schema error, missing or broken template). */
  error?: string;
}

/** Everything needed to build a workflow's graph. */
export interface WorkflowDefinition {
  manifest: WorkflowManifest;
  dir: string;
  /** Static: the text of `workflow.json` (placeholders are substituted on the parsed text). */
  template?: string;
  /** Dynamic: block name (file stem) → block. */
  blocks?: Record<string, BlockTemplate>;
}

export const workflowIndexSchema = z.object({
  version: z.number().int().nonnegative(),
  date: z.string(),
  workflows: z.array(z.object({ id: z.string(), version: z.number().int().nonnegative(), date: z.string() })),
});
export type WorkflowIndex = z.infer<typeof workflowIndexSchema>;

const EMPTY_INDEX: WorkflowIndex = { version: 0, date: '', workflows: [] };

/** Every workflow folder under `dir` (hidden ones skipped), sorted by id; never throws for one bad workflow. */
export async function loadWorkflows(dir: string): Promise<WorkflowEntry[]> {
  const dirents = await fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const ids = dirents
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const present = new Set(ids.map((id) => path.join(dir, id)));
  for (const folder of checked.keys()) if (path.dirname(folder) === path.resolve(dir) && !present.has(folder)) checked.delete(folder);
  return Promise.all(ids.map((id) => loadEntry(dir, id)));
}

/** One workflow by id, or `null` when there is no such folder (or the id could climb out of `dir`). */
export async function loadWorkflow(dir: string, id: string): Promise<WorkflowEntry | null> {
  if (!WORKFLOW_ID_PATTERN.test(id)) return null;
  const stat = await fs.stat(path.join(dir, id)).catch(() => null);
  return stat?.isDirectory() ? loadEntry(dir, id) : null;
}

/** One workflow by id, as `loadWorkflow`; 404 when there is none. */
export async function requireWorkflow(dir: string, id: string): Promise<WorkflowEntry> {
  const entry = await loadWorkflow(dir, id);
  if (!entry) throw notFound(`Workflow not found: ${id}`);
  return entry;
}

/** Read `manifest.yaml` and the graph files of a workflow; throws a `broken` `WorkflowBuildError` when broken. */
export async function loadDefinition(entry: WorkflowEntry): Promise<WorkflowDefinition> {
  if (entry.error !== undefined || !entry.manifest) throw templateError(`workflow "${entry.id}" is broken: ${entry.error ?? 'no manifest'}`);
  const { manifest, dir } = entry;
  if (manifest.type === 'static') {
    const template = await readText(path.join(dir, 'workflow.json'), `${entry.id}: workflow.json`);
    parseTemplate(template, `${entry.id}/workflow.json`);
    return { manifest, dir, template };
  }
  const blocksDir = path.join(dir, 'blocks');
  let files: string[];
  try {
    files = (await fs.readdir(blocksDir)).filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort();
  } catch {
    throw templateError(`${entry.id}: a dynamic workflow needs a blocks/ folder`);
  }
  if (files.length === 0) throw templateError(`${entry.id}: blocks/ has no .json block`);
  const blocks: Record<string, BlockTemplate> = {};
  for (const file of files) {
    const name = file.slice(0, -'.json'.length);
    const tree = parseTemplate(await readText(path.join(blocksDir, file), `${entry.id}: blocks/${file}`), `${entry.id}/blocks/${file}`);
    try {
      blocks[name] = parseBlock(tree, name);
    } catch (error) {
      throw templateError(`${entry.id}: ${(error as Error).message}`);
    }
  }
  for (const name of manifest.blocks ?? []) {
    if (!blocks[name]) throw templateError(`${entry.id}: manifest lists block "${name}" but blocks/${name}.json is missing`);
  }
  return { manifest, dir, blocks };
}

/** `index.json` of a workflows folder; a missing or broken index reads as version 0 with `error`. */
export async function loadIndex(dir: string): Promise<{ index: WorkflowIndex; error?: string }> {
  const text = await fs.readFile(path.join(dir, 'index.json'), 'utf8').catch(() => null);
  if (text === null) return { index: EMPTY_INDEX, error: 'index.json missing' };
  try {
    return { index: workflowIndexSchema.parse(JSON.parse(text)) };
  } catch (error) {
    return { index: EMPTY_INDEX, error: `index.json invalid: ${(error as Error).message.split('\n')[0]}` };
  }
}

/** Folder → the signature of its files when it was read, and what was read. */
const checked = new Map<string, { signature: string; entry: WorkflowEntry }>();

async function loadEntry(root: string, id: string): Promise<WorkflowEntry> {
  const dir = path.join(root, id);
  const signature = await filesSignature(dir);
  const known = checked.get(dir);
  if (known && known.signature === signature) return structuredClone(known.entry);
  const entry = await readEntry(dir, id);
  // A folder changed while it was read gets no cache entry: the next list reads it again.
  if ((await filesSignature(dir)) === signature) checked.set(dir, { signature, entry: structuredClone(entry) });
  else checked.delete(dir);
  return entry;
}

/** Change time, size and inode of every file a workflow is read from (absent ones included). */
async function filesSignature(dir: string): Promise<string> {
  const stamp = (file: string): Promise<string> =>
    fs.stat(file).then(
      (stat) => `${stat.mtimeMs}:${stat.ctimeMs}:${stat.size}:${stat.ino}`,
      () => '-',
    );
  const blocksDir = path.join(dir, 'blocks');
  const blocks = await fs.readdir(blocksDir).catch(() => [] as string[]);
  const files = ['manifest.yaml', 'workflow.json', ...blocks.filter((name) => name.endsWith('.json')).sort().map((name) => path.join('blocks', name))];
  const stamps = await Promise.all(files.map((file) => stamp(path.join(dir, file))));
  return [await stamp(blocksDir), ...files.map((file, index) => `${file}=${stamps[index]}`)].join('|');
}

async function readEntry(dir: string, id: string): Promise<WorkflowEntry> {
  let manifest: WorkflowManifest | undefined;
  try {
    const text = await readText(path.join(dir, 'manifest.yaml'), 'manifest.yaml');
    let raw: unknown;
    // The YAML library loads with the first manifest read, off the start's critical path.
    const { parse: parseYaml } = await import('yaml');
    try {
      raw = parseYaml(text);
    } catch (error) {
      throw new Error(`manifest.yaml is not valid YAML: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    }
    const parsed = parseManifest(raw);
    if (parsed.id !== id) throw new Error(`manifest id "${parsed.id}" differs from the folder name "${id}"`);
    manifest = parsed;
    const entry: WorkflowEntry = { id, dir, manifest };
    // Read the graph files too, so a broken template shows in the list rather than at run time.
    await loadDefinition(entry);
    return entry;
  } catch (error) {
    // A valid manifest is kept beside the error so the list can still show the workflow's name.
    return { id, dir, ...(manifest ? { manifest } : {}), error: (error as Error).message };
  }
}

function readText(file: string, what: string): Promise<string> {
  return fs.readFile(file, 'utf8').catch(({ code }: NodeJS.ErrnoException) => {
    throw templateError(code === 'ENOENT' ? `${what} is missing` : `${what} cannot be read (${code ?? 'error'})`);
  });
}
