/**
 * The schema of history.db and its migrations. `PRAGMA user_version` holds the schema version; a
 * new database gets the current schema at once, an older one is brought up to date by the
 * upgrades, in one transaction. Add an upgrade at the end; never edit one that shipped. An
 * upgrade must carry the rows over: a run whose folder was cleaned lives only here. (Version 1
 * never left development, so its upgrade may rebuild: drop the tables, create the current ones,
 * and let the next use import the run folders again.)
 */

/** The current schema, for a new database. */
export const SCHEMA = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

  -- One row per finished run: the short fields that filters and sums read (the long texts are in
  -- run_docs, so a scan for stats stays small). n is derived from the run id (its time, then its
  -- hex), so rows keep the same rowid whether they come from live indexing or from an import,
  -- and rowid order is the order the runs were created in.
  CREATE TABLE runs (
    n INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    duration_ms INTEGER,
    worker TEXT,
    model TEXT,
    mode TEXT NOT NULL,
    run_group TEXT,
    state TEXT NOT NULL,
    outcome TEXT,
    exit_code INTEGER,
    message TEXT,
    cwd TEXT NOT NULL,
    repo_root TEXT,
    steps INTEGER NOT NULL,
    tools INTEGER NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    tokens_cached INTEGER NOT NULL,
    tokens_reasoning INTEGER NOT NULL,
    worker_cost REAL,
    cost_source TEXT,
    primary_model TEXT,
    primary_cost REAL,
    saved REAL,
    returned_tokens INTEGER,
    changed_files INTEGER NOT NULL,
    isolated INTEGER NOT NULL,
    applied INTEGER NOT NULL,
    refs_verified INTEGER,
    refs_total INTEGER,
    host TEXT
  );
  CREATE INDEX runs_ended ON runs (ended_at);

  -- The texts of each run: what full-text search indexes, and the record as it was indexed (what
  -- show prints once the run folder was cleaned; its task and answer are the columns here).
  CREATE TABLE run_docs (
    n INTEGER PRIMARY KEY,
    task TEXT NOT NULL,
    answer TEXT,
    steps_text TEXT NOT NULL,
    record TEXT NOT NULL
  );

  -- The attempts of each run (a fallback chain has several), for per-target failure counts.
  CREATE TABLE attempts (
    run_n INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    worker TEXT NOT NULL,
    model TEXT,
    outcome TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    PRIMARY KEY (run_n, seq)
  ) WITHOUT ROWID;
  CREATE INDEX attempts_outcome ON attempts (outcome);

  -- What the worker did: tool calls (kind, target, status), its texts and its errors.
  CREATE TABLE steps (
    run_n INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    time INTEGER NOT NULL,
    type TEXT NOT NULL,
    tool TEXT,
    kind TEXT,
    target TEXT,
    status TEXT,
    text TEXT,
    PRIMARY KEY (run_n, seq)
  ) WITHOUT ROWID;

  -- The exact patch of a run that changed files.
  CREATE TABLE diffs (run_n INTEGER PRIMARY KEY, patch TEXT NOT NULL);

  -- Full text over the task, the answer and the steps; the text lives in run_docs (external
  -- content, kept in step by write.ts).
  CREATE VIRTUAL TABLE runs_fts USING fts5 (
    task, answer, steps_text,
    content = 'run_docs', content_rowid = 'n',
    tokenize = 'unicode61 remove_diacritics 2'
  );
`;

/** Every table of any version, for a rebuild (the FTS table first: it reads run_docs). */
const ALL_TABLES = ["runs_fts", "run_docs", "runs", "attempts", "steps", "diffs", "meta"];

/** An upgrade that rebuilds: the current schema, empty, to be filled by the next import. */
const REBUILD = ALL_TABLES.map((t) => `DROP TABLE IF EXISTS ${t};`).join("\n") + SCHEMA;

/** Upgrades, in order: upgrade `i` takes the database from version `i + 1` to `i + 2`. */
export const UPGRADES: readonly string[] = [
  // 1 -> 2: run texts moved to run_docs (stats scan short rows); attempts indexed by outcome.
  REBUILD,
  // 2 -> 3: the reference check of each answer (the stored records already carry it).
  `ALTER TABLE runs ADD COLUMN refs_verified INTEGER;
   ALTER TABLE runs ADD COLUMN refs_total INTEGER;
   UPDATE runs SET
     refs_verified = (SELECT json_extract(d.record, '$.refs.verified') FROM run_docs d WHERE d.n = runs.n),
     refs_total = (SELECT json_extract(d.record, '$.refs.total') FROM run_docs d WHERE d.n = runs.n);`,
  // 3 -> 4: the host a run's workers ran on (`-H`; none: this machine).
  `ALTER TABLE runs ADD COLUMN host TEXT;
   UPDATE runs SET
     host = (SELECT json_extract(d.record, '$.host') FROM run_docs d WHERE d.n = runs.n);`,
];

/**
 * The upgrades that take a database from version `from` to the current one. A rebuild on the way
 * makes the current schema at once, so the upgrades after it are not run.
 */
export function upgradesFrom(from: number): string[] {
  const steps = UPGRADES.slice(from - 1);
  return steps.includes(REBUILD) ? [REBUILD] : [...steps];
}

/** The schema version this Pitroom writes. */
export const SCHEMA_VERSION = UPGRADES.length + 1;
