/**
 * Opening history.db: WAL with a busy timeout (several processes index at once), the schema
 * brought up to date by its migrations, and a damaged file renamed aside so a fresh one can be
 * rebuilt from the run folders. Only this module and the ones it hands a database to load
 * node:sqlite, and only when a command needs the history.
 */
import type { HeldSys } from "../state.ts";
import type { DatabaseSync } from "node:sqlite";
import { withLock } from "../locks.ts";
import { RefusedError } from "../../sys/errors.ts";
import { SCHEMA, SCHEMA_VERSION, upgradesFrom } from "./schema.ts";

/** How long a writer waits for another process's transaction, in ms. */
const BUSY_TIMEOUT_MS = 10_000;

/** An open history database. */
export interface HistoryDb extends Disposable {
  readonly db: DatabaseSync;
  readonly path: string;
  close(): void;
}

/** True when SQLite says the file is not a usable database. */
export function isDamage(error: unknown): boolean {
  return error instanceof Error &&
    /file is not a database|disk image is malformed|malformed database schema|database corrupt|fts5: corrupt|vtable constructor failed/i
      .test(error.message);
}

/** The `meta` value under `key`, or null. */
export function metaGet(db: DatabaseSync, key: string): string | null {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row?.value ?? null;
}

/** Sets the `meta` value under `key`. */
export function metaSet(db: DatabaseSync, key: string, value: string): void {
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(key, value);
}

function migrate(db: DatabaseSync): void {
  const version = () =>
    (db.prepare("PRAGMA user_version").get() as { user_version: number })
      .user_version;
  if (version() === SCHEMA_VERSION) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    // Another process may have migrated between the check and the lock.
    const from = version();
    if (from > SCHEMA_VERSION) {
      throw new RefusedError(
        "history_newer",
        `history.db has schema ${from}, newer than this Pitroom's (${SCHEMA_VERSION})`,
        { hint: "update Pitroom, or move history.db aside and run `pitroom history import`" },
      );
    }
    if (from === 0) db.exec(SCHEMA);
    else for (const sql of upgradesFrom(from)) db.exec(sql);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/** True when the file is already in WAL mode at the current schema: no setup to do. */
function isReady(db: DatabaseSync): boolean {
  const mode = (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
  const version = (db.prepare("PRAGMA user_version").get() as { user_version: number })
    .user_version;
  return mode === "wal" && version === SCHEMA_VERSION;
}

/**
 * Makes a new or older file ready: page size, WAL and the schema. Switching to WAL needs the
 * file to itself, and SQLite answers "database is locked" at once (its busy handler is not
 * waited on there) when another connection is doing the same: so the setup runs under a file
 * lock of its own, one process after another, and each re-checks what the one before it did.
 */
async function setUp(db: DatabaseSync, path: string): Promise<void> {
  await withLock(`${path}.setup.lock`, () => {
    if (isReady(db)) return Promise.resolve();
    // Larger pages hold several run texts each (a new file only; ignored once it has tables).
    db.exec("PRAGMA page_size = 16384");
    db.exec("PRAGMA journal_mode = WAL");
    migrate(db);
    return Promise.resolve();
  });
}

async function connect(path: string): Promise<DatabaseSync> {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!isReady(db)) await setUp(db, path);
    db.exec("PRAGMA synchronous = NORMAL");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function handle(db: DatabaseSync, path: string): HistoryDb {
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    db.close();
  };
  return { db, path, close, [Symbol.dispose]: close };
}

/** Holds `<state dir>/history.lock` while `fn` runs (repairs and the first import). */
export async function withHistoryLock<T>(sys: HeldSys, fn: () => Promise<T>): Promise<T> {
  return await withLock(`${sys.state.paths.history}.lock`, fn);
}

/** Renames a damaged database (and its WAL files) aside; returns the new name. */
export async function moveAside(sys: HeldSys, path: string): Promise<string> {
  const aside = `${path}.damaged-${sys.clock.now()}`;
  await Deno.rename(path, aside).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  for (const suffix of ["-wal", "-shm"]) {
    await Deno.remove(path + suffix).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  return aside;
}

/** What `openHistory` did besides opening. */
export interface OpenResult {
  history: HistoryDb;
  /** The file was damaged and moved here; the new database is empty. */
  movedAside?: string;
}

/**
 * Opens (creating when missing) history.db. A damaged file is renamed aside under the history
 * lock (once, even when several processes find it at the same time) and a new one is created.
 */
export async function openHistory(sys: HeldSys): Promise<OpenResult> {
  const path = sys.state.paths.history;
  await Deno.mkdir(sys.stateDir, { recursive: true, mode: 0o700 });
  try {
    return { history: handle(await connect(path), path) };
  } catch (error) {
    if (!isDamage(error)) throw error;
  }
  return await withHistoryLock(sys, async () => {
    try {
      // Another process may have repaired it while we waited for the lock.
      return { history: handle(await connect(path), path) };
    } catch (error) {
      if (!isDamage(error)) throw error;
    }
    const movedAside = await moveAside(sys, path);
    return { history: handle(await connect(path), path), movedAside };
  });
}

/** Opens history.db only when it exists (null otherwise): for readers that must stay cheap. */
export async function openExisting(sys: HeldSys): Promise<HistoryDb | null> {
  const path = sys.state.paths.history;
  try {
    await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  return handle(await connect(path), path);
}
