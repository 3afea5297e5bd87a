/**
 * Disable, enable and uninstall a node package, and restore a snapshot by hand. Each takes a
 * snapshot first and restarts an engine Studio runs, so the change is what the engine loads.
 * Disabling renames the folder `<name>.disabled`, the engine's own convention for "skip it".
 * Uninstalling removes the folder and lists the Python packages that package alone brought:
 * other things may use them, so they are never removed silently.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { DomainError, notFound } from '../domain-error.js';
import { DISABLED_SUFFIX } from './node-environment.js';
import type { NodeChanges } from './node-change.js';
import { isPackageName } from './node-url.js';

export interface ManageResult {
  status: 'disabled' | 'enabled' | 'uninstalled' | 'restored';
  name?: string;
  snapshot_id: string;
  /** The engine was restarted and checked (false: external engine, restart it yourself). */
  verified: boolean;
  node_types: string[];
  note: string | null;
  /** Uninstall: Python packages only this package brought, left installed. */
  python_packages_left?: string[];
}

export class NodeManageService {
  constructor(private readonly changes: NodeChanges) {}

  setEnabled(name: string, enabled: boolean): Promise<ManageResult> {
    const env = this.changes.environment();
    return this.changes.serial(async () => {
      const folder = await this.existing(name);
      if (folder.disabled === !enabled) throw new DomainError('conflict', `${name} is already ${enabled ? 'enabled' : 'disabled'}`);
      const snap = await this.changes.snapshot(`before ${enabled ? 'enabling' : 'disabling'} ${name}`);
      await fsp.rename(folder.dir, path.join(env.customNodesDir, enabled ? name : `${name}${DISABLED_SUFFIX}`));
      const outcome = await this.changes.deps.check.verify(name, enabled ? 'loaded' : 'absent');
      this.changes.deps.log(outcome.ok ? 'ok' : 'error', `${enabled ? 'Enabled' : 'Disabled'} ${name}${outcome.note ? `: ${outcome.note}` : ''}`);
      return { status: enabled ? 'enabled' : 'disabled', name, snapshot_id: snap.id, verified: outcome.verified, node_types: outcome.nodeTypes, note: outcome.note };
    });
  }

  uninstall(name: string): Promise<ManageResult> {
    return this.changes.serial(async () => {
      const folder = await this.existing(name);
      const snap = await this.changes.snapshot(`before uninstalling ${name}`);
      const records = await this.changes.deps.records.all();
      const others = new Set(Object.entries(records).flatMap(([other, r]) => (other === name ? [] : r.python_added)));
      const left = (records[name]?.python_added ?? []).filter((p) => snap.python[p] !== undefined && !others.has(p));
      await fsp.rm(folder.dir, { recursive: true, force: true });
      await this.changes.deps.records.set(name, null);
      // An install a crash cut short, uninstalled by hand: a folder of that name later is not Studio's leftover.
      await this.changes.deps.unfinished.clear(name);
      const outcome = await this.changes.deps.check.verify(name, 'absent');
      const leftWords = left.length ? `; Python packages it alone brought are still installed: ${left.join(', ')}` : '';
      this.changes.deps.log('ok', `Uninstalled ${name}${leftWords}`);
      return { status: 'uninstalled', name, snapshot_id: snap.id, verified: outcome.verified, node_types: [], note: outcome.note, python_packages_left: left };
    });
  }

  /** Put a stored snapshot back (after taking one of the environment as it is now). */
  restore(id: string): Promise<ManageResult> {
    return this.changes.serial(async () => {
      const target = await this.changes.deps.snapshots.get(id);
      const snap = await this.changes.snapshot(`before restoring snapshot ${id}`);
      await this.changes.environment().restore(target);
      const failed = await this.changes.deps.check.restart();
      this.changes.deps.log(failed ? 'error' : 'ok', `Restored snapshot ${id}${failed ? `, but ${failed}` : ''}`);
      const canRestart = this.changes.deps.check.canRestart;
      return { status: 'restored', snapshot_id: snap.id, verified: canRestart && !failed, node_types: [], note: failed ?? (canRestart ? null : 'The engine is external: restart it yourself to load the restored packages.') };
    });
  }

  private async existing(name: string) {
    if (!isPackageName(name)) throw new DomainError('invalid', `Not a package name: ${name}`);
    const folder = await this.changes.environment().folder(name);
    if (!folder) throw notFound(`No node package ${name}`);
    return folder;
  }
}
