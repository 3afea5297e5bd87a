/**
 * Numbered schema migrations. Append only: a shipped migration is never edited, a change is a
 * new entry. `openDatabase` applies the missing ones in order, each in its own transaction.
 */
import { FIRST_MIGRATIONS, type Migration } from './migrations-1-12.js';

export type { Migration };

/** 1 to 12 in `migrations-1-12.ts` (the file grew past the house's 400 lines), then these. */
export const MIGRATIONS: readonly Migration[] = [
  ...FIRST_MIGRATIONS,
  {
    version: 13,
    name: 'Accounts: people added by the owner, their personal API keys (issue 43)',
    sql: `
      -- The owner (the holder of API_KEY, id 'owner') is not a row. name_key is the name folded
      -- to lower case: names are unique whatever their case. password_hash is scrypt with its salt
      -- and cost in the value. quotas and allow are JSON (null: no limit). A disabled person keeps
      -- their row and records; sessions_after_ms ends every session signed in before it.
      CREATE TABLE users (
        id                TEXT PRIMARY KEY,
        name              TEXT NOT NULL,
        name_key          TEXT NOT NULL UNIQUE,
        role              TEXT NOT NULL CHECK (role IN ('admin','member','viewer')),
        password_hash     TEXT NOT NULL,
        quotas            TEXT,
        allow             TEXT,
        disabled          INTEGER NOT NULL DEFAULT 0,
        sessions_after_ms INTEGER NOT NULL DEFAULT 0,
        created_ms        INTEGER NOT NULL,
        updated_ms        INTEGER NOT NULL
      );
      -- Personal keys: only the SHA-256 of the key is kept, and its first characters to tell keys
      -- apart. user_id may be 'owner'. A revoked key keeps its row (revoked_ms) for the record.
      CREATE TABLE user_keys (
        id           TEXT PRIMARY KEY,
        user_id      TEXT NOT NULL,
        name         TEXT NOT NULL,
        scope        TEXT NOT NULL CHECK (scope IN ('read','run','admin')),
        prefix       TEXT NOT NULL,
        hash         TEXT NOT NULL UNIQUE,
        created_ms   INTEGER NOT NULL,
        last_used_ms INTEGER,
        revoked_ms   INTEGER
      );
      CREATE INDEX user_keys_user ON user_keys (user_id);
    `,
  },
  {
    version: 14,
    name: 'private work: the person each job, LLM chat and uploaded input belongs to',
    sql: `
      -- Who made the record ('owner': the holder of API_KEY, which every record made before people
      -- existed belongs to). Members see only their own; history pages by owner walk this index.
      ALTER TABLE jobs ADD COLUMN owner_id TEXT NOT NULL DEFAULT 'owner';
      CREATE INDEX jobs_owner_created ON jobs (owner_id, created_ms);
      -- The asset browser asks whose each job folder is.
      CREATE INDEX jobs_output_dir ON jobs (output_dir);
      ALTER TABLE llm_chats ADD COLUMN owner_id TEXT NOT NULL DEFAULT 'owner';
      -- Input files uploaded by a person other than the owner (a file without a row is the owner's).
      CREATE TABLE input_owners (
        name     TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL
      );
    `,
  },
  {
    version: 15,
    name: "the engine's own API served by Studio: the prompts its clients sent",
    sql: `
      -- One row per prompt a client of the engine's API submitted through Studio's door (issue 44):
      -- the client's id (its socket gets the prompt's messages), the graph and extra data as sent
      -- (the queue and history answers show them; a restart resubmits them), the outputs the engine reported (the history
      -- answer after a restart), whether the final message reached the client, and whether the
      -- client removed it from its history view (the Studio job stays).
      CREATE TABLE comfy_prompts (
        prompt_id   TEXT PRIMARY KEY,
        job_id      TEXT NOT NULL,
        client_id   TEXT,
        owner_id    TEXT NOT NULL,
        number      REAL NOT NULL,
        prompt      TEXT NOT NULL,
        extra_data  TEXT NOT NULL,
        output_ids  TEXT NOT NULL,
        outputs     TEXT NOT NULL DEFAULT '{}',
        told_final  INTEGER NOT NULL DEFAULT 0,
        hidden      INTEGER NOT NULL DEFAULT 0,
        created_ms  INTEGER NOT NULL
      );
      CREATE INDEX comfy_prompts_client ON comfy_prompts (client_id, told_final);
      -- The Studio job that runs the prompt now: its own id, or the job Studio resubmitted it as
      -- after a restart stalled it (the client keeps tracking its own id).
      CREATE INDEX comfy_prompts_job ON comfy_prompts (job_id);
    `,
  },
  {
    version: 16,
    name: 'Batches: grids, lists and CSV batches, their cells, and the batch lane of the queue (issue 45)',
    sql: `
      -- One batch, made by owner_id. state: submitting (its jobs are being queued: none starts),
      -- running, paused, cancelled, completed. time_window is JSON {from, to} (HH:MM, Studio's time) or
      -- null; axes JSON as resolved (input, label, values, labels); params the base values.
      CREATE TABLE batches (
        id          TEXT PRIMARY KEY,
        owner_id    TEXT NOT NULL,
        name        TEXT NOT NULL,
        kind        TEXT NOT NULL CHECK (kind IN ('grid','list','csv')),
        workflow_id TEXT NOT NULL,
        preset_id   TEXT,
        params      TEXT NOT NULL,
        axes        TEXT NOT NULL,
        time_window TEXT,
        state       TEXT NOT NULL CHECK (state IN ('submitting','running','paused','cancelled','completed')),
        created_ms  INTEGER NOT NULL,
        created_at  TEXT NOT NULL
      );
      CREATE INDEX batches_owner ON batches (owner_id, created_ms);
      -- One job per cell; the job row may be deleted from the history later (the cell stays).
      CREATE TABLE batch_cells (
        batch_id  TEXT NOT NULL REFERENCES batches(id) ON DELETE CASCADE,
        idx       INTEGER NOT NULL,
        prompt_id TEXT NOT NULL,
        vals      TEXT NOT NULL,
        coords    TEXT,
        PRIMARY KEY (batch_id, idx)
      );
      CREATE INDEX batch_cells_prompt ON batch_cells (prompt_id);
      -- A waiting job of a batch waits in the batch lane: after every interactive job.
      ALTER TABLE job_queue ADD COLUMN batch_id TEXT;
    `,
  },
  {
    version: 17,
    name: 'job locks: what each job ran on (issue 46)',
    sql: `
      -- The lock recorded at submission (engine, node packages, Python, model hashes, workflow
      -- version, parameters, seeds) as JSON; it goes with its job.
      CREATE TABLE job_locks (
        prompt_id   TEXT PRIMARY KEY REFERENCES jobs (prompt_id) ON DELETE CASCADE,
        lock        TEXT NOT NULL,
        recorded_ms INTEGER NOT NULL
      );
    `,
  },
  {
    version: 18,
    name: 'the urgent mark: a waiting job an admin moved ahead keeps its place',
    sql: `
      -- 1: moved ahead by an admin (POST /api/admin/queue/move); a later job's fair place is after it.
      ALTER TABLE job_queue ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 19,
    name: "word when a job is done: each person's notification targets and their deliveries (issue 47)",
    sql: `
      -- kind: ntfy | webhook. events: a JSON list of event types. secret: a webhook's HMAC key;
      -- token: an ntfy access token. Both are sent to the receiver only, never back to a page.
      CREATE TABLE notify_targets (
        id         TEXT PRIMARY KEY,
        owner_id   TEXT NOT NULL,
        kind       TEXT NOT NULL CHECK (kind IN ('ntfy','webhook')),
        name       TEXT NOT NULL,
        url        TEXT NOT NULL,
        events     TEXT NOT NULL,
        secret     TEXT,
        token      TEXT,
        enabled    INTEGER NOT NULL DEFAULT 1,
        created_ms INTEGER NOT NULL
      );
      CREATE INDEX notify_targets_owner ON notify_targets (owner_id);
      -- The latest deliveries of each target (older ones are pruned).
      CREATE TABLE notify_deliveries (
        id          TEXT PRIMARY KEY,
        target_id   TEXT NOT NULL REFERENCES notify_targets(id) ON DELETE CASCADE,
        event       TEXT NOT NULL,
        title       TEXT NOT NULL,
        status      TEXT NOT NULL,
        attempts    INTEGER NOT NULL,
        http_status INTEGER,
        detail      TEXT NOT NULL,
        at_ms       INTEGER NOT NULL
      );
      CREATE INDEX notify_deliveries_target ON notify_deliveries (target_id, at_ms DESC);
    `,
  },
];
