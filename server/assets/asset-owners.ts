/**
 * Who an asset belongs to (issue 43, private work): an output in a job folder is its job's
 * owner's; an input is its uploader's (`input_owners`, a row only for people other than the owner);
 * anything else (loose outputs, files put there by hand, inputs from before people) is the owner
 * of Studio's. Members see and reach only their own; owner and admins everything.
 */
import type { Db } from '../db/database.js';
import { mayTouch, seesEveryone, type Actor } from '../http/actor.js';
import { OWNER_ID } from '../contracts/users.contract.js';
import type { ViewQuery } from '../contracts/engine.contract.js';
import type { AssetType } from './asset-types.js';

export class AssetOwners {
  private readonly getStmt;
  private readonly putStmt;

  constructor(
    db: Db,
    /** The owner of the job whose output folder is `folder` (null: no job has it). */
    private readonly ownerOfJobFolder: (folder: string) => string | null,
  ) {
    this.getStmt = db.prepare('SELECT owner_id FROM input_owners WHERE name = ?');
    this.putStmt = db.prepare('INSERT INTO input_owners (name, owner_id) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET owner_id = excluded.owner_id');
  }

  /** Remember who uploaded an input (stored under `name`, relative to the input folder). */
  recordInput(name: string, ownerId: string): void {
    if (ownerId !== OWNER_ID) this.putStmt.run(name, ownerId);
  }

  /** The owner of an asset by its path relative to its folder (`/`-separated). */
  ownerOf(type: AssetType, rel: string): string {
    if (type === 'inputs') return (this.getStmt.get(rel) as { owner_id: string } | undefined)?.owner_id ?? OWNER_ID;
    const folder = rel.split('/')[0]!;
    return (folder !== rel ? this.ownerOfJobFolder(folder) : null) ?? OWNER_ID;
  }

  /** Whether `actor` may see the asset. */
  reaches(actor: Actor, type: AssetType, rel: string): boolean {
    return seesEveryone(actor) || mayTouch(actor, this.ownerOf(type, rel));
  }

  /** Whether `actor` may see a file `/api/engine/view` names (temp files are previews of running jobs: everyone's). */
  reachesView(actor: Actor, query: ViewQuery): boolean {
    if (seesEveryone(actor) || query.type === 'temp') return true;
    const rel = [...query.subfolder.split(/[/\\]/), query.filename.replace(/\s*\[(input|output|temp)\]$/, '')].filter(Boolean).join('/');
    return this.reaches(actor, query.type === 'input' ? 'inputs' : 'outputs', rel);
  }
}
