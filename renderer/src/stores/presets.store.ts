/**
 * Presets: the list with its sources, and the actions on one preset (run, rename, delete,
 * import, export, make one from a job).
 */
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import { useClient } from '../api/context.js';
import { PresetsApi, type PlaceholderQuestion, type Preset, type PresetInput, type PresetListEntry, type PresetRenameInput, type PresetRunInput } from '../api/presets-api.js';

export type PresetSourceKind = 'hand' | 'job' | 'modelhub';

/** Where a preset came from, from its list entry and (when read) its stored `source.type`. */
export function presetSource(entry: PresetListEntry, storedType?: string): PresetSourceKind {
  const type = entry.source_type ?? storedType;
  if (type === 'modelhub') return 'modelhub';
  if (type === 'job') return 'job';
  return 'hand';
}

interface StoredSource {
  type: string;
  prompt_id?: string;
}
const HAND: StoredSource = { type: 'hand' };

function storedSource(source: { type: string; [key: string]: unknown } | undefined): StoredSource {
  if (!source) return HAND;
  return typeof source.prompt_id === 'string' ? { type: source.type, prompt_id: source.prompt_id } : { type: source.type };
}

export const usePresetsStore = defineStore('presets', () => {
  const api = new PresetsApi(useClient().api.http);
  const list = ref<PresetListEntry[]>([]);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  const query = ref('');
  /** `source` of presets whose list entry does not carry it (the spec's list names only hub sources). */
  const storedSources = ref<Record<string, StoredSource>>({});

  const filtered = computed(() => {
    const q = query.value.trim().toLowerCase();
    const sorted = [...list.value].sort((a, b) => a.name.localeCompare(b.name));
    if (!q) return sorted;
    return sorted.filter((p) => `${p.name} ${p.id} ${p.workflow_name} ${p.description}`.toLowerCase().includes(q));
  });

  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      list.value = await api.list();
      loaded.value = true;
      error.value = null;
      await readSources();
    } catch (err) {
      error.value = err instanceof Error ? err.message : String(err);
    } finally {
      loading.value = false;
    }
  }

  // Reads each unknown preset once (ids are file names, so a renamed one is read again).
  async function readSources(): Promise<void> {
    const unknown = list.value.filter((p) => !p.source_type && !(p.id in storedSources.value));
    const found = await Promise.all(unknown.map((p) => api.detail(p.id).then((d) => [p.id, storedSource(d.source)] as const, () => [p.id, HAND] as const)));
    if (found.length) storedSources.value = { ...storedSources.value, ...Object.fromEntries(found) };
  }

  /** Where a listed preset came from. */
  function sourceOf(entry: PresetListEntry): PresetSourceKind {
    return presetSource(entry, storedSources.value[entry.id]?.type);
  }

  /** The prompt id of the job a preset was made from, when it was. */
  function jobOf(entry: PresetListEntry): string | null {
    return storedSources.value[entry.id]?.prompt_id ?? null;
  }

  /** A preset with its parameters. */
  function detail(id: string): Promise<Preset> {
    return api.detail(id);
  }

  /** Save a new preset (the "Save as preset" dialog picks a free id). */
  async function create(preset: PresetInput): Promise<string> {
    const { id } = await api.create(preset);
    await refresh();
    return id;
  }

  /** The placeholder questions a run asks. */
  function placeholders(id: string): Promise<PlaceholderQuestion[]> {
    return api.placeholders(id);
  }

  /** Run a preset; resolves with the new job's prompt id. */
  async function run(id: string, input: PresetRunInput): Promise<string> {
    const { prompt_id } = await api.run(id, input);
    return prompt_id;
  }

  async function rename(id: string, body: PresetRenameInput): Promise<{ id: string; name: string }> {
    const answer = await api.rename(id, body);
    await refresh();
    return answer;
  }

  async function remove(id: string): Promise<void> {
    await api.remove(id);
    list.value = list.value.filter((p) => p.id !== id);
  }

  async function importFile(file: File): Promise<string> {
    const { id } = await api.importFile(file);
    await refresh();
    return id;
  }

  return { list, filtered, sourceOf, jobOf, loading, loaded, error, query, refresh, detail, create, placeholders, run, rename, remove, importFile, exportUrl: (id: string) => api.exportUrl(id) };
});
