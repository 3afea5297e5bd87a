/**
 * Retention for job outputs (optional, off until turned on): keep the newest N days, or the
 * newest N GB, of finished jobs; starred jobs, jobs a preset was made from and jobs in a retry chain are kept
 * whatever their age. The plan is shown first ("would free X GB"); once on, the rule runs daily
 * and each run is reported (an event, and the last run kept in settings). Deleting goes through
 * the jobs capability's own delete (records and folders), handed in by `studio.ts`.
 */
import path from 'node:path';
import type { Db } from '../db/database.js';
import { SettingsStore } from '../db/settings.store.js';
import { DomainError } from '../domain-error.js';
import type { EventBus } from '../events/event-bus.js';
import { formatSize } from '../free-space.js';
import { retentionRule, type RetentionPlan, type RetentionRule, type RetentionState } from '../contracts/disk.contract.js';
import { walkFiles } from '../free-space.js';

const DAY_MS = 24 * 60 * 60_000;
const KEY = 'disk.retention';
const LAST_RUN_KEY = 'disk.retention.last_run';
const FINISHED = new Set(['completed', 'error', 'stalled', 'cancelled']);

interface JobRow {
  prompt_id: string;
  status: string;
  output_dir: string | null;
  created_ms: number;
  retry_of: string | null;
  starred: number;
}

export interface RetentionDeps {
  db: Db;
  events: EventBus;
  outputsDir: string;
  /** Jobs a preset was made from (`source.prompt_id`): kept. */
  presetJobs: () => Promise<Set<string>>;
  /** The jobs capability's delete: records and output folders. */
  deleteJobs: (ids: string[]) => Promise<{ deleted: string[]; errors: string[] }>;
  now?: () => number;
}

export class RetentionService {
  private readonly settings: SettingsStore;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly deps: RetentionDeps) {
    this.settings = new SettingsStore(deps.db);
  }

  async state(): Promise<RetentionState> {
    const stored = this.stored();
    const last = this.settings.get(LAST_RUN_KEY);
    return {
      enabled: stored?.enabled ?? false,
      rule: stored?.rule ?? null,
      would_free: stored ? await this.plan(stored.rule) : null,
      last_run: last ? (JSON.parse(last) as RetentionState['last_run']) : null,
    };
  }

  /** Save the rule (and whether it runs daily); answers the state with what it would free now. */
  async configure(enabled: boolean, rule: unknown): Promise<RetentionState> {
    this.settings.set(KEY, JSON.stringify({ enabled, rule: parseRule(rule) }));
    return this.state();
  }

  /** What `rule` would remove now, without removing anything. */
  async plan(raw: unknown): Promise<RetentionPlan> {
    const rule = parseRule(raw);
    const { remove, kept } = await this.select(rule);
    return { rule, jobs: remove.length, bytes: remove.reduce((n, j) => n + j.bytes, 0), sample: remove.slice(0, 10).map((j) => j.id), kept };
  }

  /** Apply the saved rule now (the daily run; also on request). */
  async run(): Promise<RetentionState['last_run']> {
    const stored = this.stored();
    if (!stored) throw new DomainError('conflict', 'No retention rule is set');
    this.running ??= this.apply(stored.rule).finally(() => (this.running = null));
    return (await this.running) as RetentionState['last_run'];
  }

  start(intervalMs = DAY_MS): void {
    this.timer = setInterval(() => {
      if (this.stored()?.enabled) void this.run().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async apply(rule: RetentionRule): Promise<RetentionState['last_run']> {
    const { remove } = await this.select(rule);
    const result = remove.length ? await this.deps.deleteJobs(remove.map((j) => j.id)) : { deleted: [], errors: [] };
    const gone = new Set(result.deleted);
    const bytes = remove.filter((j) => gone.has(j.id)).reduce((n, j) => n + j.bytes, 0);
    const last = { at: new Date(this.now()).toISOString(), jobs: gone.size, bytes, errors: result.errors };
    this.settings.set(LAST_RUN_KEY, JSON.stringify(last));
    this.deps.events.emit('disk.retention.ran', result.errors.length ? 'warning' : 'info', `Retention removed ${gone.size} jobs (${formatSize(bytes)})`, { jobs: gone.size, bytes, rule, errors: result.errors });
    return last;
  }

  /** Finished jobs newest first with their output sizes; which the rule removes, and how many past it are kept. */
  private async select(rule: RetentionRule): Promise<{ remove: Array<{ id: string; bytes: number }>; kept: number }> {
    const rows = this.deps.db.prepare<[], JobRow>('SELECT prompt_id, status, output_dir, created_ms, retry_of, starred FROM jobs ORDER BY created_ms DESC').all();
    const retried = new Set(rows.flatMap((r) => (r.retry_of ? [r.retry_of] : [])));
    const presets = await this.deps.presetJobs();
    const protectedJob = (r: JobRow) => r.starred === 1 || r.retry_of !== null || retried.has(r.prompt_id) || presets.has(r.prompt_id);
    const remove: Array<{ id: string; bytes: number }> = [];
    let kept = 0;
    let total = 0;
    const cutoff = rule.days != null ? this.now() - rule.days * DAY_MS : null;
    const budget = rule.max_gb != null ? rule.max_gb * 1e9 : null;
    for (const row of rows) {
      if (!FINISHED.has(row.status)) continue;
      const bytes = row.output_dir ? (await walkFiles(path.join(this.deps.outputsDir, row.output_dir))).reduce((n, f) => n + f.size, 0) : 0;
      total += bytes;
      const past = (cutoff !== null && row.created_ms < cutoff) || (budget !== null && total > budget);
      if (!past) continue;
      if (protectedJob(row)) kept += 1;
      else remove.push({ id: row.prompt_id, bytes });
    }
    return { remove, kept };
  }

  private stored(): { enabled: boolean; rule: RetentionRule } | null {
    const raw = this.settings.get(KEY);
    return raw ? (JSON.parse(raw) as { enabled: boolean; rule: RetentionRule }) : null;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }
}

function parseRule(raw: unknown): RetentionRule {
  const parsed = retentionRule.safeParse(raw);
  if (!parsed.success) throw new DomainError('invalid', parsed.error.issues[0]?.message ?? 'Invalid retention rule');
  return { days: parsed.data.days ?? null, max_gb: parsed.data.max_gb ?? null };
}
