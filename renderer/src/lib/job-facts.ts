/**
 * What the job page lists about a job, as plain data: parameters in the manifest's order with
 * their labels, and the status history from the record's times.
 */
import type { JobRecord, ManifestInput } from '../api/types.js';

export interface ParamRow {
  label: string;
  value: string;
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map((v) => (v && typeof v === 'object' && 'name' in v ? `${String((v as { name: unknown }).name)} × ${String((v as { strength?: unknown }).strength ?? 1)}` : String(v))).join(', ') || '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Every parameter and seed, labelled from the manifest when it is known; seeds show the value used. */
export function paramRows(job: JobRecord, inputs: readonly ManifestInput[] = []): ParamRow[] {
  const rows: ParamRow[] = [];
  const seen = new Set<string>();
  for (const input of inputs) {
    seen.add(input.id);
    const label = input.label ?? input.id;
    if (input.type === 'seed') {
      const used = job.seeds[input.id];
      const asked = job.params[input.id];
      rows.push({ label, value: used === undefined ? show(asked) : `${used}${asked === -1 ? ' (random)' : ''}` });
    } else if (input.id in job.params) rows.push({ label, value: show(job.params[input.id]) });
  }
  for (const [key, value] of Object.entries(job.params)) if (!seen.has(key) && !key.startsWith('_')) rows.push({ label: key, value: show(value) });
  for (const [key, value] of Object.entries(job.seeds)) if (!seen.has(key) && !(key in job.params)) rows.push({ label: key, value: String(value) });
  return rows;
}

export interface StatusStep {
  label: string;
  at: string | null;
}

/** Queued → started → finished (or failed), from the record's stamps. */
export function statusHistory(job: JobRecord): StatusStep[] {
  const steps: StatusStep[] = [{ label: 'Queued', at: job.queued_at }];
  if (job.started_at) steps.push({ label: 'Started', at: job.started_at });
  if (job.finished_at) steps.push({ label: job.status === 'completed' ? 'Completed' : job.status === 'stalled' ? 'Stalled' : job.status === 'cancelled' ? 'Cancelled' : 'Failed', at: job.finished_at });
  return steps;
}

/** The params for "run again with a new seed": every seed input asks for a fresh random one. */
export function withNewSeeds(job: JobRecord, inputs: readonly ManifestInput[]): Record<string, unknown> {
  const params = { ...job.params };
  const seedIds = inputs.filter((i) => i.type === 'seed').map((i) => i.id);
  for (const id of seedIds.length ? seedIds : Object.keys(job.seeds)) params[id] = -1;
  if (job.input_image) {
    const image = inputs.find((i) => i.type === 'image');
    if (image && !params[image.id]) params[image.id] = job.input_image;
  }
  return params;
}

const PROMPT_KEYS = /prompt|positive|^text$|caption/i;

/** The job's prompt: the text parameter named like one (not the negative), else the first text with spaces. */
export function promptOf(job: Pick<JobRecord, 'params'>): string | null {
  const texts = Object.entries(job.params).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== '' && !e[0].startsWith('_') && !/neg/i.test(e[0]));
  const named = texts.find(([key]) => PROMPT_KEYS.test(key)) ?? texts.find(([, value]) => /\s/.test(value.trim()));
  return named ? named[1].trim() : null;
}

/** The first `count` words of `text`, with an ellipsis when there were more. */
export function firstWords(text: string, count = 12): string {
  const words = text.trim().split(/\s+/);
  return words.length > count ? `${words.slice(0, count).join(' ')}…` : words.join(' ');
}
