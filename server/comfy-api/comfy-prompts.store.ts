/**
 * The prompts clients of the engine's API sent through Studio's door (SQLite `comfy_prompts`): who
 * sent them (owner, client id), the graph and extra data as sent, the outputs the engine reported
 * for them, and whether the last message reached the client. The Studio job is the record of what
 * ran; this row is what the engine itself would remember about the prompt.
 */
import type { Db } from '../db/database.js';
import type { ApiGraph } from '../engine/engine-graph.js';

export interface ComfyPrompt {
  prompt_id: string;
  /** The Studio job running it now (the prompt id, or its resubmission after a restart). */
  job_id: string;
  client_id: string | null;
  owner_id: string;
  number: number;
  prompt: ApiGraph;
  extra_data: Record<string, unknown>;
  /** The output nodes, in the engine's `outputs_to_execute`. */
  output_ids: string[];
  /** The `executed` outputs seen so far, by node id. */
  outputs: Record<string, unknown>;
  told_final: boolean;
  hidden: boolean;
  created_ms: number;
}

/** A `comfy_prompts` row: the JSON columns as text, the flags as 0/1. */
type JsonColumn = 'prompt' | 'extra_data' | 'output_ids' | 'outputs';
type Row = Omit<ComfyPrompt, JsonColumn | 'told_final' | 'hidden'> & Record<JsonColumn, string> & Record<'told_final' | 'hidden', number>;

const fromRow = (row: Row): ComfyPrompt => ({
  ...row,
  prompt: JSON.parse(row.prompt) as ApiGraph,
  extra_data: JSON.parse(row.extra_data) as Record<string, unknown>,
  output_ids: JSON.parse(row.output_ids) as string[],
  outputs: JSON.parse(row.outputs) as Record<string, unknown>,
  told_final: row.told_final === 1,
  hidden: row.hidden === 1,
});

export class ComfyPromptStore {
  constructor(private readonly db: Db) {}

  add(prompt: Omit<ComfyPrompt, 'job_id' | 'outputs' | 'told_final' | 'hidden'>): void {
    this.db
      .prepare('INSERT INTO comfy_prompts (prompt_id, job_id, client_id, owner_id, number, prompt, extra_data, output_ids, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(prompt.prompt_id, prompt.prompt_id, prompt.client_id, prompt.owner_id, prompt.number, JSON.stringify(prompt.prompt), JSON.stringify(prompt.extra_data), JSON.stringify(prompt.output_ids), prompt.created_ms);
  }

  remove(promptId: string): void {
    this.db.prepare('DELETE FROM comfy_prompts WHERE prompt_id = ?').run(promptId);
  }

  get(promptId: string): ComfyPrompt | null {
    const row = this.db.prepare('SELECT * FROM comfy_prompts WHERE prompt_id = ?').get(promptId) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** The prompt a Studio job runs (null: not the door's). */
  byJob(jobId: string): ComfyPrompt | null {
    const row = this.db.prepare('SELECT * FROM comfy_prompts WHERE job_id = ?').get(jobId) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** The prompt runs as another job from now on (resubmitted after a restart). */
  rebind(promptId: string, jobId: string): void {
    this.db.prepare("UPDATE comfy_prompts SET job_id = ?, outputs = '{}', told_final = 0 WHERE prompt_id = ?").run(jobId, promptId);
  }

  /** Whether a prompt id is the door's (cheap: the relay asks it for every message). */
  has(promptId: string): boolean {
    return this.db.prepare('SELECT 1 FROM comfy_prompts WHERE prompt_id = ?').get(promptId) !== undefined;
  }

  /** Every prompt of `ownerId` (null: everyone's), oldest first. */
  list(ownerId: string | null): ComfyPrompt[] {
    const rows = (ownerId === null ? this.db.prepare('SELECT * FROM comfy_prompts ORDER BY created_ms, number').all() : this.db.prepare('SELECT * FROM comfy_prompts WHERE owner_id = ? ORDER BY created_ms, number').all(ownerId)) as Row[];
    return rows.map(fromRow);
  }

  /** The prompts of one client whose final message it has not had. */
  untold(clientId: string): ComfyPrompt[] {
    return (this.db.prepare('SELECT * FROM comfy_prompts WHERE client_id = ? AND told_final = 0 ORDER BY created_ms, number').all(clientId) as Row[]).map(fromRow);
  }

  /** The highest number given so far (the engine's counter goes on from it). */
  lastNumber(): number {
    const row = this.db.prepare('SELECT MAX(number) AS n FROM comfy_prompts').get() as { n: number | null };
    return row.n ?? 0;
  }

  addOutput(promptId: string, nodeId: string, output: unknown): void {
    const prompt = this.get(promptId);
    if (!prompt) return;
    this.db.prepare('UPDATE comfy_prompts SET outputs = ? WHERE prompt_id = ?').run(JSON.stringify({ ...prompt.outputs, [nodeId]: output }), promptId);
  }

  /** A new run of the prompt (after a failover): what the old one reported is dropped. */
  resetOutputs(promptId: string): void {
    this.db.prepare("UPDATE comfy_prompts SET outputs = '{}', told_final = 0 WHERE prompt_id = ?").run(promptId);
  }

  toldFinal(promptId: string): void {
    this.db.prepare('UPDATE comfy_prompts SET told_final = 1 WHERE prompt_id = ?').run(promptId);
  }

  hide(promptIds: readonly string[]): void {
    const stmt = this.db.prepare('UPDATE comfy_prompts SET hidden = 1 WHERE prompt_id = ?');
    this.db.transaction(() => promptIds.forEach((id) => stmt.run(id)))();
  }
}
