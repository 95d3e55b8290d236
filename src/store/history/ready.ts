/**
 * The history as commands use it: opened, imported from the run folders the first time, and
 * rebuilt when the file turns out damaged (renamed aside, then imported again).
 */
import type { HeldSys } from "../state.ts";
import type { DatabaseSync } from "node:sqlite";
import {
  type HistoryDb,
  isDamage,
  metaGet,
  moveAside,
  openHistory,
  withHistoryLock,
} from "./db.ts";
import { type ImportResult, importRuns, indexPending } from "./import.ts";

/** What was done to make the history ready, for a note on stderr. */
export interface Preparation {
  /** The first import, or the rebuild after a damaged file. */
  imported?: ImportResult;
  /** Where a damaged file was moved. */
  movedAside?: string;
}

async function importOnce(sys: HeldSys, db: DatabaseSync): Promise<ImportResult | undefined> {
  if (metaGet(db, "imported_at") !== null) return undefined;
  return await withHistoryLock(sys, async () => {
    // Another process may have imported while we waited.
    if (metaGet(db, "imported_at") !== null) return undefined;
    return await importRuns(sys, db);
  });
}

async function prepare(sys: HeldSys): Promise<{ history: HistoryDb } & Preparation> {
  const { history, movedAside } = await openHistory(sys);
  try {
    const imported = await importOnce(sys, history.db);
    // Runs whose indexing failed when they ended.
    await indexPending(sys, history.db);
    return {
      history,
      ...(imported ? { imported } : {}),
      ...(movedAside ? { movedAside } : {}),
    };
  } catch (error) {
    history.close();
    throw error;
  }
}

/** True when a fresh connection finds the file damaged. */
async function stillDamaged(sys: HeldSys): Promise<boolean> {
  try {
    const { history } = await openHistory(sys);
    using _ = history;
    const rows = history.db.prepare("PRAGMA quick_check").all() as { quick_check: string }[];
    return !(rows.length === 1 && rows[0]?.quick_check === "ok");
  } catch (error) {
    if (isDamage(error)) return true;
    throw error;
  }
}

/**
 * Runs `fn` on the ready history. When SQLite reports damage on the way, the file is moved
 * aside, rebuilt from the run folders, and `fn` runs once more.
 */
export async function withHistory<T>(
  sys: HeldSys,
  fn: (db: DatabaseSync, prep: Preparation) => T | Promise<T>,
): Promise<T> {
  let movedAside: string | undefined;
  try {
    const ready = await prepare(sys);
    using _ = ready.history;
    return await fn(ready.history.db, ready);
  } catch (error) {
    if (!isDamage(error)) throw error;
    movedAside = await withHistoryLock(sys, async () => {
      return (await stillDamaged(sys)) ? await moveAside(sys, `${sys.stateDir}/history.db`) : "";
    });
  }
  const ready = await prepare(sys);
  using _ = ready.history;
  return await fn(ready.history.db, { ...ready, ...(movedAside ? { movedAside } : {}) });
}
