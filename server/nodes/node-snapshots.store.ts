/**
 * Snapshots of the engine's environment taken before every node package change: the Python
 * packages with versions and each node package's folder, commit, origin and disabled state. One
 * JSON file each under the engine data folder, written to a temporary name and renamed.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { NodeSnapshot, NodeSnapshotSummary } from '../contracts/nodes.contract.js';
import { notFound } from '../domain-error.js';
import { writeFileAtomic } from '../fs-durable.js';
import { fileStamp } from '../time.js';

const ID = /^[0-9]{8}T[0-9]{6}-[0-9a-z]{4}$/;

export class NodeSnapshotStore {
  constructor(private readonly dir: string) {}

  /** Store a snapshot; returns it with its new id. */
  async add(snapshot: Omit<NodeSnapshot, 'id'>, now = new Date()): Promise<NodeSnapshot> {
    const id = `${fileStamp(now, 'T')}-${Math.random().toString(36).slice(2, 6).padEnd(4, '0')}`;
    const full: NodeSnapshot = { id, ...snapshot };
    await writeFileAtomic(path.join(this.dir, `${id}.json`), JSON.stringify(full, null, 1));
    return full;
  }

  async get(id: string): Promise<NodeSnapshot> {
    if (!ID.test(id) || !fs.existsSync(path.join(this.dir, `${id}.json`))) throw notFound(`No snapshot ${id}`);
    return JSON.parse(await fsp.readFile(path.join(this.dir, `${id}.json`), 'utf8')) as NodeSnapshot;
  }

  /** Newest first, without the package lists. */
  async list(): Promise<NodeSnapshotSummary[]> {
    const names = fs.existsSync(this.dir) ? await fsp.readdir(this.dir) : [];
    const ids = names.filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -5))).map((n) => n.slice(0, -5));
    ids.sort().reverse();
    const out: NodeSnapshotSummary[] = [];
    for (const id of ids) {
      const s = await this.get(id);
      out.push({ id: s.id, created_at: s.created_at, reason: s.reason, python_packages: Object.keys(s.python).length, node_packages: s.nodes.map((n) => ({ name: n.name, commit: n.commit, disabled: n.disabled })) });
    }
    return out;
  }
}
