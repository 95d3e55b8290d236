/**
 * store/: everything Pitroom keeps on disk, outside the user's repository. `statePaths` computes
 * the layout of the state dir (`runs/<id>/` with run.json, the raw stream, the events file, the
 * patch and private attempt dirs; `slots/`, `queue/`, `active/`, `repos/<key>/objects`,
 * cooldown.json). Records are written atomically (temp file + rename) and carry a
 * `schemaVersion`. Locks are flock-based, so a dead owner never leaves a stale claim: the run's
 * supervisor lock, worker slots, queue tickets and a repository's writer lock. The config file
 * is read tolerantly: unknown keys and wrong types are warnings. `history/` keeps history.db,
 * the index of the run folders (opened, imported, written; its queries are engine/history/).
 */
export { type RunPaths, type StatePaths, statePaths } from "./paths.ts";
export type { Attempt, ChangedFile, Changes, Progress, RunRecord, Target } from "./record.ts";
export { listRunIds, loadRecord, readRecord, readRecordChecked, writeRecord } from "./runs.ts";
export { type Config, loadConfig } from "./config.ts";
