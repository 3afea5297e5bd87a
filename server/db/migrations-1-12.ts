/**
 * Studio's schema migrations 1 to 12, as shipped before accounts (issue 43): append-only history,
 * never edited. `migrations.ts` continues the list; `Migration` is the shape of every entry.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const FIRST_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial tables: jobs, events, settings, saved_prompts',
    sql: `
      CREATE TABLE jobs (
        prompt_id     TEXT PRIMARY KEY,
        workflow_id   TEXT,
        workflow_name TEXT,
        output_dir    TEXT,
        status        TEXT NOT NULL CHECK (status IN ('queued','running','completed','error','stalled')),
        queued_at     TEXT,
        started_at    TEXT,
        finished_at   TEXT,
        duration      INTEGER,
        input_image   TEXT,
        params        TEXT NOT NULL DEFAULT '{}',
        seeds         TEXT NOT NULL DEFAULT '{}',
        output        TEXT,
        error         TEXT,
        retry_of      TEXT,
        created_ms    INTEGER NOT NULL
      );
      CREATE INDEX jobs_status ON jobs (status);
      CREATE INDEX jobs_created ON jobs (created_ms DESC);

      -- events.jsonl is the log the spec names; this table mirrors it for queries and counts.
      -- Ids are 8 random hex digits, so they are not a key: seq is.
      CREATE TABLE events (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        id        TEXT NOT NULL,
        type      TEXT NOT NULL,
        severity  TEXT NOT NULL,
        timestamp TEXT NOT NULL,
        message   TEXT NOT NULL,
        data      TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX events_type ON events (type);

      CREATE TABLE settings (
        key        TEXT PRIMARY KEY,
        value      TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );

      CREATE TABLE saved_prompts (
        id          TEXT PRIMARY KEY,
        name        TEXT NOT NULL,
        workflow_id TEXT,
        text        TEXT NOT NULL,
        params      TEXT NOT NULL DEFAULT '{}',
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'download queue',
    sql: `
      -- One row per file the download manager knows. Rows left 'queued' or 'downloading' by a
      -- stop or a crash start again on boot and resume from the .part file on disk.
      CREATE TABLE downloads (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        filename    TEXT NOT NULL UNIQUE,
        kind        TEXT NOT NULL CHECK (kind IN ('models','loras','llm')),
        status      TEXT NOT NULL CHECK (status IN ('queued','downloading','done','error')),
        bytes       INTEGER NOT NULL DEFAULT 0,
        total       INTEGER,
        error       TEXT,
        error_kind  TEXT,
        attempt     INTEGER NOT NULL DEFAULT 0,
        sha256      TEXT,
        queued_at   TEXT NOT NULL,
        started_at  TEXT,
        finished_at TEXT,
        updated_at  TEXT NOT NULL
      );
      CREATE INDEX downloads_status ON downloads (status, id);
    `,
  },
  {
    version: 3,
    name: 'revoked sessions',
    sql: `
      -- Session ids signed out by logout, kept until their cookie would have expired anyway.
      CREATE TABLE revoked_sessions (
        sid        TEXT PRIMARY KEY,
        expires_ms INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'model hub gallery: items, fetch jobs, tag names',
    sql: `
      -- One row per hub image in a model's gallery (the same image may sit in two models'
      -- galleries). Paths are relative to STUDIO_DIR/gallery; item is the hub's JSON (with meta).
      CREATE TABLE gallery_items (
        model_id     TEXT NOT NULL,
        id           INTEGER NOT NULL,
        source       TEXT NOT NULL CHECK (source IN ('original','community')),
        media_type   TEXT NOT NULL CHECK (media_type IN ('image','video')),
        content_type TEXT NOT NULL,
        file         TEXT NOT NULL,
        thumb        TEXT,
        bytes        INTEGER NOT NULL,
        width        INTEGER,
        height       INTEGER,
        version_id   TEXT,
        username     TEXT,
        created_at   TEXT,
        created_ms   INTEGER NOT NULL,
        starred      INTEGER NOT NULL DEFAULT 0,
        item         TEXT NOT NULL,
        fetched_at   TEXT NOT NULL,
        PRIMARY KEY (model_id, id)
      );
      CREATE INDEX gallery_items_listing ON gallery_items (model_id, created_ms DESC, id DESC);
      CREATE INDEX gallery_items_id ON gallery_items (id);

      -- The background fetch of a model's gallery; a row left 'queued'/'running' by a stop or a
      -- crash resumes on boot from its phase and cursor.
      CREATE TABLE gallery_fetches (
        model_id    TEXT PRIMARY KEY,
        status      TEXT NOT NULL CHECK (status IN ('queued','running','done','error')),
        phase       TEXT NOT NULL CHECK (phase IN ('original','community')),
        cursor      TEXT,
        pages       INTEGER NOT NULL DEFAULT 0,
        seen        INTEGER NOT NULL DEFAULT 0,
        downloaded  INTEGER NOT NULL DEFAULT 0,
        skipped     INTEGER NOT NULL DEFAULT 0,
        failed      INTEGER NOT NULL DEFAULT 0,
        error       TEXT,
        started_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        finished_at TEXT
      );

      -- Hub tag ids seen in gallery metadata, with the names the hub resolved them to.
      CREATE TABLE modelhub_tags (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL,
        resolved_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'jobs remember the preset they came from',
    sql: `
      -- Set on jobs started by POST /api/admin/presets/{id}/run (and kept by their retries).
      ALTER TABLE jobs ADD COLUMN preset_id TEXT;
    `,
  },
  {
    version: 7,
    name: 'stored SHA-256 of files the disk page compared',
    sql: `
      -- One row per file hashed for the duplicate finder; a row is trusted only while the file's
      -- size and mtime still match, so a changed file is hashed again.
      CREATE TABLE file_hashes (
        path      TEXT PRIMARY KEY,
        size      INTEGER NOT NULL,
        mtime_ms  INTEGER NOT NULL,
        sha256    TEXT NOT NULL,
        hashed_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: "Studio's own queue: status cancelled, queue entries, queue settings",
    sql: `
      -- SQLite cannot change a CHECK constraint: the table is rebuilt with 'cancelled' allowed.
      CREATE TABLE jobs_v7 (
        prompt_id     TEXT PRIMARY KEY,
        workflow_id   TEXT,
        workflow_name TEXT,
        output_dir    TEXT,
        status        TEXT NOT NULL CHECK (status IN ('queued','running','completed','error','stalled','cancelled')),
        queued_at     TEXT,
        started_at    TEXT,
        finished_at   TEXT,
        duration      INTEGER,
        input_image   TEXT,
        params        TEXT NOT NULL DEFAULT '{}',
        seeds         TEXT NOT NULL DEFAULT '{}',
        output        TEXT,
        error         TEXT,
        retry_of      TEXT,
        created_ms    INTEGER NOT NULL,
        preset_id     TEXT
      );
      INSERT INTO jobs_v7 (prompt_id, workflow_id, workflow_name, output_dir, status, queued_at, started_at, finished_at, duration,
        input_image, params, seeds, output, error, retry_of, created_ms, preset_id)
        SELECT prompt_id, workflow_id, workflow_name, output_dir, status, queued_at, started_at, finished_at, duration,
        input_image, params, seeds, output, error, retry_of, created_ms, preset_id FROM jobs;
      DROP TABLE jobs;
      ALTER TABLE jobs_v7 RENAME TO jobs;
      CREATE INDEX jobs_status ON jobs (status);
      CREATE INDEX jobs_created ON jobs (created_ms DESC);

      -- One row per job Studio holds for an engine: waiting (engine_id NULL, ordered by seq) or
      -- handed to an engine (engine_id set). The graph is kept because it is submitted later.
      CREATE TABLE job_queue (
        prompt_id  TEXT PRIMARY KEY REFERENCES jobs (prompt_id) ON DELETE CASCADE,
        submitter  TEXT NOT NULL,
        seq        INTEGER NOT NULL,
        graph      TEXT NOT NULL,
        extra_data TEXT NOT NULL,
        engine_id  TEXT,
        handed_ms  INTEGER
      );
      CREATE INDEX job_queue_seq ON job_queue (seq);
    `,
  },
  {
    version: 9,
    name: 'kept LLM chats: conversations with their model and settings, and their messages',
    sql: `
      CREATE TABLE llm_chats (
        id         TEXT PRIMARY KEY,
        title      TEXT NOT NULL,
        model      TEXT,
        settings   TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX llm_chats_updated ON llm_chats (updated_at DESC);
      CREATE TABLE llm_chat_messages (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id    TEXT NOT NULL REFERENCES llm_chats (id) ON DELETE CASCADE,
        role       TEXT NOT NULL CHECK (role IN ('system','user','assistant')),
        content    TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX llm_chat_messages_chat ON llm_chat_messages (chat_id, id);
    `,
  },
  {
    version: 10,
    name: 'Engine pool: remote engines and agents, failovers of queued jobs',
    sql: `
      -- Engines added by URL (a ComfyUI elsewhere, or a Studio agent with its key). The local and
      -- per-GPU engines come from configuration and are not stored.
      CREATE TABLE engines (
        id       TEXT PRIMARY KEY,
        name     TEXT NOT NULL,
        kind     TEXT NOT NULL CHECK (kind IN ('remote','agent')),
        url      TEXT NOT NULL,
        key      TEXT,
        added_ms INTEGER NOT NULL
      );
      -- How often a job went back to the queue because its engine went offline (at most twice).
      ALTER TABLE job_queue ADD COLUMN failovers INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 11,
    name: 'starred jobs: kept by output retention, a history filter',
    sql: `
      -- 1 when the user starred the job (the history's star); retention never removes a starred job.
      ALTER TABLE jobs ADD COLUMN starred INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 12,
    name: 'Engine pool: the engine each job was handed to, kept on the finished record',
    sql: `
      -- The engine a job was last handed to (null: it never left Studio's queue); history and the
      -- job's own record say where it ran, not only the live queue.
      ALTER TABLE jobs ADD COLUMN engine_id TEXT;
    `,
  },
];
