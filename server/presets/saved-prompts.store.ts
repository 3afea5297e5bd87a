/**
 * The `saved_prompts` table mirrors the preset folder (one row per preset) so system status
 * can count presets with the other tables. The folder is the truth: the mirror follows every
 * change and is rebuilt from the folder at boot, so a file added or removed by hand, or a
 * crash between a file write and its row, is corrected on the next start.
 */
import type { Db } from '../db/database.js';
import { localStamp } from '../time.js';
import type { Preset } from '../contracts/presets.contract.js';

/** Prompt-like parameter names, tried in order for a row's `text`. */
const PROMPT_KEYS = ['positive_prompt', 'positive', 'prompt', 'text'];

export class SavedPromptsMirror {
  private readonly upsertStmt;
  private readonly deleteStmt;

  constructor(private readonly db: Db) {
    this.upsertStmt = db.prepare(
      `INSERT INTO saved_prompts (id, name, workflow_id, text, params, created_at, updated_at)
       VALUES (@id, @name, @workflow_id, @text, @params, @now, @now)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, workflow_id = excluded.workflow_id,
         text = excluded.text, params = excluded.params, updated_at = excluded.updated_at
       -- A row whose content is unchanged (every boot's rebuild) keeps its updated_at.
       WHERE name IS NOT excluded.name OR workflow_id IS NOT excluded.workflow_id
         OR text IS NOT excluded.text OR params IS NOT excluded.params`,
    );
    this.deleteStmt = db.prepare('DELETE FROM saved_prompts WHERE id = ?');
  }

  upsert(preset: Preset): void {
    this.upsertStmt.run(rowOf(preset, localStamp()));
  }

  /** A rename: the old row goes, the new one comes, in one transaction (created_at kept). */
  rename(oldId: string, preset: Preset): void {
    this.db.transaction(() => {
      const created = this.db.prepare('SELECT created_at FROM saved_prompts WHERE id = ?').get(oldId) as { created_at: string } | undefined;
      this.deleteStmt.run(oldId);
      this.upsert(preset);
      if (created) this.db.prepare('UPDATE saved_prompts SET created_at = ? WHERE id = ?').run(created.created_at, preset.id);
    })();
  }

  remove(id: string): void {
    this.deleteStmt.run(id);
  }

  /** Make the table hold exactly `presets` (rows of presets still there keep their created_at). */
  rebuild(presets: readonly Preset[]): void {
    this.db.transaction(() => {
      const keep = new Set(presets.map((p) => p.id));
      for (const { id } of this.db.prepare('SELECT id FROM saved_prompts').all() as Array<{ id: string }>) {
        if (!keep.has(id)) this.deleteStmt.run(id);
      }
      for (const preset of presets) this.upsert(preset);
    })();
  }
}

function rowOf(preset: Preset, now: string): Record<string, string> {
  return {
    id: preset.id,
    name: preset.name,
    workflow_id: preset.workflow.workflow_id,
    text: promptText(preset.workflow.params),
    params: JSON.stringify(preset.workflow.params),
    now,
  };
}

/** The preset's prompt: the first prompt-like string parameter, else the first string one. */
function promptText(params: Record<string, unknown>): string {
  for (const key of PROMPT_KEYS) if (typeof params[key] === 'string') return params[key];
  const first = Object.values(params).find((v): v is string => typeof v === 'string');
  return first ?? '';
}
