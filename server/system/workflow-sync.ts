/**
 * Workflows from the repository: each workflow whose own `version` in the repository's
 * `index.json` is higher than the local one (or that is new) is copied whole; the others, and
 * workflows only the user has, stay as they are. The merged index keeps the higher versions.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { workflowIndexSchema, type WorkflowIndex } from '../workflows/workflow.store.js';
import { WORKFLOW_ID_PATTERN } from '../contracts/workflows.contract.js';


export interface WorkflowSyncPlan {
  /** Workflows to copy from the repository. */
  ids: string[];
  local: WorkflowIndex;
  remote: WorkflowIndex;
}

/** Compare the two indexes; throws when the repository's index is missing or malformed. */
export async function planWorkflowSync(localDir: string, remoteDir: string): Promise<WorkflowSyncPlan> {
  const remote = await readIndex(path.join(remoteDir, 'index.json'));
  const local = await readIndex(path.join(localDir, 'index.json')).catch(() => ({ version: 0, date: '', workflows: [] }) as WorkflowIndex);
  const localVersions = new Map(local.workflows.map((w) => [w.id, w.version]));
  const ids = remote.workflows.filter((w) => WORKFLOW_ID_PATTERN.test(w.id) && w.version > (localVersions.get(w.id) ?? -1)).map((w) => w.id);
  return { ids, local, remote };
}

/** Write at `staging` the local workflows folder with the planned workflows replaced from the repository. */
export async function buildWorkflowsDir(localDir: string, remoteDir: string, staging: string, plan: WorkflowSyncPlan): Promise<void> {
  await fs.mkdir(staging, { recursive: true });
  await fs.cp(localDir, staging, { recursive: true, force: true, errorOnExist: false }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  for (const id of plan.ids) {
    await fs.rm(path.join(staging, id), { recursive: true, force: true });
    await fs.cp(path.join(remoteDir, id), path.join(staging, id), { recursive: true });
  }
  const byId = new Map(plan.local.workflows.map((w) => [w.id, w]));
  for (const w of plan.remote.workflows) if (plan.ids.includes(w.id)) byId.set(w.id, w);
  const newer = plan.remote.version > plan.local.version;
  const index: WorkflowIndex = {
    version: Math.max(plan.local.version, plan.remote.version),
    date: newer ? plan.remote.date : plan.local.date,
    workflows: [...byId.values()].sort((a, b) => a.id.localeCompare(b.id)),
  };
  await fs.writeFile(path.join(staging, 'index.json'), `${JSON.stringify(index, null, 2)}\n`);
}

async function readIndex(file: string): Promise<WorkflowIndex> {
  const raw = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
  const parsed = workflowIndexSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${file} is not a valid workflow index: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}
