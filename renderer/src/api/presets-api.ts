/**
 * The preset endpoints (spec "Presets"): URLs and bodies in one place, used by the presets store.
 */
import type { PlaceholderQuestion, Preset, PresetInput, PresetListEntry } from '../../../server/contracts/presets.contract.js';
import type { Http } from './http.js';

export type { PresetListEntry, PlaceholderQuestion, Preset, PresetInput };

export interface PresetRunInput {
  seed?: number;
  /** Placeholder index → chosen option. */
  answers: Record<string, string>;
  image?: File;
  /** An input already uploaded (the image field uploads at once, as on the Run page). */
  existing_image?: string;
}

export interface PresetRenameInput {
  id?: string;
  name?: string;
  description?: string;
  private?: boolean;
}

const BASE = '/api/admin/presets';
const one = (id: string): string => `${BASE}/${encodeURIComponent(id)}`;

export class PresetsApi {
  constructor(private readonly http: Http) {}

  list(): Promise<PresetListEntry[]> {
    return this.http.get(BASE);
  }
  detail(id: string): Promise<Preset> {
    return this.http.get(one(id));
  }
  /** Create (or, with an existing id, replace) a preset. */
  create(preset: PresetInput): Promise<{ id: string; message: string }> {
    return this.http.post(BASE, preset);
  }
  placeholders(id: string): Promise<PlaceholderQuestion[]> {
    return this.http.get(`${one(id)}/placeholders`);
  }
  run(id: string, input: PresetRunInput): Promise<{ prompt_id: string; seeds: Record<string, number> }> {
    const form = new FormData();
    form.append('seed', String(input.seed ?? -1));
    form.append('answers', JSON.stringify(input.answers));
    if (input.image) form.append('input_image', input.image, input.image.name);
    if (input.existing_image) form.append('existing_image', input.existing_image);
    return this.http.postForm(`${one(id)}/run`, form);
  }
  rename(id: string, body: PresetRenameInput): Promise<{ id: string; name: string }> {
    return this.http.put(`${one(id)}/rename`, body);
  }
  remove(id: string): Promise<{ ok: boolean }> {
    return this.http.delete(one(id));
  }
  importFile(file: File): Promise<{ id: string; message: string }> {
    const form = new FormData();
    form.append('file', file, file.name);
    return this.http.postForm(`${BASE}/import`, form);
  }
  exportUrl(id: string): string {
    return this.http.url(`${one(id)}/export`);
  }
}
