/**
 * Writing a workflow folder the way imports and the form editor do: the files go into a hidden
 * temporary folder that is renamed into place (a replaced folder is renamed aside first and
 * removed after), and `index.json` is rewritten through a temporary file with its version bumped.
 * Callers run one write at a time (the import service's queue), so the index never races.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowManifest } from '../../contracts/workflows.contract.js';
import { DomainError } from '../../domain-error.js';
import { pathExists, writeFileAtomic } from '../../fs-durable.js';
import type { ApiGraph } from '../../engine/engine-graph.js';
import { loadIndex, type WorkflowIndex } from '../workflow.store.js';

/** The two files of a static workflow. */
export async function staticFiles(manifest: WorkflowManifest, graph: ApiGraph | string): Promise<Map<string, Buffer>> {
  // The YAML library loads with the first write, not at start (see workflow.store.ts).
  const { stringify: toYaml } = await import('yaml');
  const template = typeof graph === 'string' ? graph : `${JSON.stringify(graph, null, 2)}\n`;
  return new Map([
    ['manifest.yaml', Buffer.from(toYaml(manifest, { lineWidth: 0 }))],
    ['workflow.json', Buffer.from(template)],
  ]);
}

/** Write a new workflow folder; 409 when the id is taken. */
export async function writeNewFolder(dir: string, manifest: WorkflowManifest, files: Map<string, Buffer>): Promise<void> {
  if (await pathExists(path.join(dir, manifest.id))) throw new DomainError('conflict', `A workflow with id "${manifest.id}" exists already; choose another id`);
  await fs.mkdir(dir, { recursive: true });
  const temp = await writeTemp(dir, manifest.id, files);
  await fs.rename(temp, path.join(dir, manifest.id)).catch(async (error: unknown) => {
    await fs.rm(temp, { recursive: true, force: true });
    throw error;
  });
  await bumpIndex(dir, manifest);
}

/** Replace an existing workflow folder with `files` (the old folder is gone only once the new one is in place). */
export async function replaceFolder(dir: string, manifest: WorkflowManifest, files: Map<string, Buffer>): Promise<void> {
  const target = path.join(dir, manifest.id);
  const temp = await writeTemp(dir, manifest.id, files);
  const aside = path.join(dir, `.replaced-${manifest.id}-${randomBytes(4).toString('hex')}`);
  await fs.rename(target, aside);
  try {
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rename(aside, target);
    await fs.rm(temp, { recursive: true, force: true });
    throw error;
  }
  await fs.rm(aside, { recursive: true, force: true });
  await bumpIndex(dir, manifest);
}

async function writeTemp(dir: string, id: string, files: Map<string, Buffer>): Promise<string> {
  const temp = path.join(dir, `.import-${id}-${randomBytes(4).toString('hex')}`);
  try {
    await fs.mkdir(temp);
    for (const [rel, data] of files) {
      await fs.mkdir(path.dirname(path.join(temp, rel)), { recursive: true });
      await fs.writeFile(path.join(temp, rel), data);
    }
    return temp;
  } catch (error) {
    await fs.rm(temp, { recursive: true, force: true });
    throw error;
  }
}

async function bumpIndex(dir: string, manifest: WorkflowManifest): Promise<void> {
  const { index } = await loadIndex(dir);
  const next: WorkflowIndex = {
    version: index.version + 1,
    date: manifest.date,
    workflows: [...index.workflows.filter((w) => w.id !== manifest.id), { id: manifest.id, version: manifest.version, date: manifest.date }].sort((a, b) =>
      a.id.localeCompare(b.id),
    ),
  };
  await writeFileAtomic(path.join(dir, 'index.json'), `${JSON.stringify(next, null, 2)}\n`);
}
