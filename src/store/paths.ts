/**
 * Every path in the state dir, computed in one place.
 */
import { join } from "../sys/path.ts";

/** The layout of Pitroom's state dir. */
export interface StatePaths {
  root: string;
  runs: string;
  slots: string;
  queue: string;
  repos: string;
  logs: string;
  cooldown: string;
  /** The searchable history (an index rebuilt from the run folders). */
  history: string;
  /** Runs whose indexing failed (`history-pending/<id>`), indexed on the next history read. */
  historyPending: string;
  /** The git guard put first on every worker's PATH. */
  guard: string;
  /** Private copies of isolate runs, one folder per copy (named after the run that made it). */
  copies: string;
  /** Live-run markers (`active/<id>`). */
  active: string;
  /** Plan notes: one folder per plan file (`plans/<key>/notes.jsonl`), keyed by its real path. */
  plans: string;
  /** The background host: one process per state dir that executes every background run. */
  host: { lock: string; pid: string; inbox: string };
  /** Locks of one-at-a-time starts (`locks/start-<name>.lock`) and first starts. */
  locks: string;
  /** Runs whose end was announced (`notified/<id>`), so it is announced once. */
  notified: string;
  /** The answer cache: one file per key (`answers/<key>.json`). */
  answers: string;
  /**
   * The change journal (store/changes.ts): `changes/<n>.jsonl`, one `run.changed` line per change
   * of a finished run's record, in a folder of its own so a watch of it wakes for nothing else.
   */
  changes: { dir: string; lock: string };
  run(id: string): RunPaths;
  repo(key: string): { dir: string; objects: string; writerLock: string; writer: string };
}

/** The files of one run folder. */
export interface RunPaths {
  dir: string;
  record: string;
  supervisorLock: string;
  /** Held while the run is marked lost (with the supervisor lock): a read then sees it lost. */
  lostLock: string;
  /** The worker's raw stdout stream (compressed to `stream.jsonl.gz` when the run ends). */
  stream: string;
  streamGz: string;
  /** Normalized events of the union, one JSON line each (compressed to `events.jsonl.gz` when the run ends). */
  events: string;
  eventsGz: string;
  stderr: string;
  patch: string;
  /** Every write into the user's tree for this run (apply, revert), as store/journal.ts keeps it. */
  journal: string;
  /** What revert could not separate: the files' versions, kept for the user. */
  kept: string;
  prompt: string;
  /** Private dirs of the attempts (profiles, homes, throwaway index). */
  private: string;
  index: string;
  /**
   * A write run's file versions while it worked (engine/tree/tree_watch.ts); outside `private`, so a
   * lost run's capture still finds them.
   */
  versions: string;
  /** A copy of the user's index when a write run began (did it move?), until it is collected. */
  userIndex: string;
  /** One line per result that handed the run over to a caller (store/returned.ts). */
  returned: string;
}

/** Computes the layout under `root`. */
export function statePaths(root: string): StatePaths {
  const runs = join(root, "runs");
  return {
    root,
    runs,
    slots: join(root, "slots"),
    queue: join(root, "queue"),
    repos: join(root, "repos"),
    logs: join(root, "logs"),
    cooldown: join(root, "cooldown.json"),
    history: join(root, "history.db"),
    historyPending: join(root, "history-pending"),
    guard: join(root, "guard"),
    copies: join(root, "copies"),
    active: join(root, "active"),
    plans: join(root, "plans"),
    locks: join(root, "locks"),
    notified: join(root, "notified"),
    answers: join(root, "answers"),
    changes: { dir: join(root, "changes"), lock: join(root, "changes", "journal.lock") },
    host: {
      lock: join(root, "host", "host.lock"),
      pid: join(root, "host", "pid"),
      inbox: join(root, "host", "inbox"),
    },
    run(id) {
      const dir = join(runs, id);
      return {
        dir,
        record: join(dir, "run.json"),
        supervisorLock: join(dir, "supervisor.lock"),
        lostLock: join(dir, "lost.lock"),
        stream: join(dir, "stream.jsonl"),
        streamGz: join(dir, "stream.jsonl.gz"),
        events: join(dir, "events.jsonl"),
        eventsGz: join(dir, "events.jsonl.gz"),
        stderr: join(dir, "stderr.log"),
        patch: join(dir, "patch.diff"),
        journal: join(dir, "journal.jsonl"),
        kept: join(dir, "kept"),
        prompt: join(dir, "prompt.txt"),
        private: join(dir, "private"),
        index: join(dir, "private", "index"),
        versions: join(dir, "versions.jsonl"),
        userIndex: join(dir, "user-index"),
        returned: join(dir, "returned.jsonl"),
      };
    },
    repo(key) {
      const dir = join(root, "repos", key);
      return {
        dir,
        objects: join(dir, "objects"),
        writerLock: join(dir, "writer.lock"),
        /** The id of the run holding the writer lock. */
        writer: join(dir, "writer"),
      };
    },
  };
}

/** True when `id` has the shape of a run id (`YYYYMMDD-HHMMSS-xxxx`). */
export function isRunId(id: string): boolean {
  return /^\d{8}-\d{6}-[0-9a-f]{4}$/.test(id);
}
