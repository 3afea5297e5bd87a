/**
 * The output metadata settings, in the settings table: on or off (on unless turned off), and the
 * workflows whose prompts stay out of what their outputs carry.
 */
import type { SettingsStore } from '../db/settings.store.js';
import type { ProvenanceSettings } from '../contracts/provenance.contract.js';

const METADATA_KEY = 'provenance.metadata';
const PRIVATE_KEY = 'provenance.private_prompt_workflows';

export class ProvenanceSettingsStore {
  constructor(private readonly settings: SettingsStore) {}

  get(): ProvenanceSettings {
    return { metadata: this.metadataOn(), private_prompt_workflows: this.privateWorkflows() };
  }

  set(change: Partial<ProvenanceSettings>): ProvenanceSettings {
    if (change.metadata !== undefined) this.settings.set(METADATA_KEY, change.metadata ? 'on' : 'off');
    if (change.private_prompt_workflows !== undefined) this.settings.set(PRIVATE_KEY, JSON.stringify([...new Set(change.private_prompt_workflows)].sort()));
    return this.get();
  }

  metadataOn(): boolean {
    return this.settings.get(METADATA_KEY) !== 'off';
  }

  isPrivate(workflowId: string | null): boolean {
    return workflowId !== null && this.privateWorkflows().includes(workflowId);
  }

  private privateWorkflows(): string[] {
    try {
      const list: unknown = JSON.parse(this.settings.get(PRIVATE_KEY) ?? '[]');
      return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string') : [];
    } catch {
      return [];
    }
  }
}
