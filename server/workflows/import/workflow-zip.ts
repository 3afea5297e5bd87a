/**
 * A Studio workflow folder as a ZIP (export) and back (import). The archive holds the folder's
 * files at its root: `manifest.yaml` and `workflow.json` or `blocks/*.json` (README.md, if any,
 * comes along). Import keeps exactly those, checks the manifest and the graph files as the
 * workflow list would, and refuses anything else that would land outside the folder.
 */
import { parseManifest, type WorkflowManifest } from '../../contracts/workflows.contract.js';
import { parseTemplate } from '../placeholders.js';
import { invalid } from './ui-graph.js';
import { listZip } from './zip-reader.js';

const MAX_UNPACKED = 50 * 1024 * 1024;
const KEPT = /^(manifest\.yaml|workflow\.json|README\.md|blocks\/[A-Za-z0-9_.-]+\.json)$/;

export interface WorkflowFolder {
  manifest: WorkflowManifest;
  /** Path inside the folder → bytes, ready to write. */
  files: Map<string, Buffer>;
}

/** Read an exported workflow ZIP; `id` renames it (the manifest's id follows). */
export async function readWorkflowZip(bytes: Buffer, id?: string): Promise<WorkflowFolder> {
  // The YAML library loads with the first import, not at start (see workflow.store.ts).
  const { parse: parseYaml, stringify: toYaml } = await import('yaml');
  const entries = listZip(bytes, MAX_UNPACKED);
  // An archive made by zipping the folder itself has one top folder: look inside it.
  const names = entries.map((entry) => entry.name);
  const prefix = names.every((n) => n.includes('/')) && new Set(names.map((n) => n.split('/')[0])).size === 1 ? `${names[0]!.split('/')[0]}/` : '';
  const files = new Map<string, Buffer>();
  // Only the kept files are unpacked, each once (a name listed twice keeps its first entry).
  for (const entry of entries) {
    const rel = entry.name.slice(prefix.length);
    if (KEPT.test(rel) && !files.has(rel)) files.set(rel, entry.read());
  }
  const manifestBytes = files.get('manifest.yaml');
  if (!manifestBytes) throw invalid('not a workflow: the ZIP has no manifest.yaml (export a workflow from Studio to get one)');
  let manifest: WorkflowManifest;
  try {
    manifest = parseManifest(parseYaml(manifestBytes.toString('utf8')));
  } catch (error) {
    throw invalid(`the ZIP's manifest.yaml is not valid: ${(error as Error).message.split('\n')[0]}`);
  }
  for (const [rel, data] of files) {
    if (rel.endsWith('.json')) {
      try {
        parseTemplate(data.toString('utf8'), rel);
      } catch (error) {
        throw invalid((error as Error).message);
      }
    }
  }
  if (manifest.type === 'static' && !files.has('workflow.json')) throw invalid('the ZIP has no workflow.json, which a static workflow needs');
  if (manifest.type === 'dynamic' && ![...files.keys()].some((rel) => rel.startsWith('blocks/'))) throw invalid('the ZIP has no blocks/*.json, which a dynamic workflow needs');
  if (id !== undefined && id !== manifest.id) {
    manifest = { ...manifest, id };
    files.set('manifest.yaml', Buffer.from(toYaml(manifest, { lineWidth: 0 })));
  }
  return { manifest, files };
}
