/**
 * Creating a run: the record in state `queued`, written atomically before anything runs.
 */
import type { HeldSys } from "../../store/state.ts";
import type { StatePaths } from "../../store/paths.ts";
import {
  type AuditOf,
  emptyProgress,
  type FrozenSettings,
  type PlanRef,
  RECORD_SCHEMA,
  type ReviewInfo,
  type RunRecord,
  type Target,
  type TreeSnapshot,
} from "../../store/record.ts";
import { join } from "../../sys/path.ts";
import { markActive, markRecent } from "../../store/active.ts";
import type { Mode } from "../../workers/types.ts";
import { newRunId } from "../core/ids.ts";
import type { Caps } from "./caps.ts";
import { removeIfThere } from "../../sys/fs.ts";
import { MODES } from "../../workers/modes.ts";

/** What a new run is. */
export interface NewRun {
  task: string;
  /** When the run was asked for (its `createdAt`), when that was before it is created. */
  askedAt?: number;
  mode: Mode;
  cwd: string;
  chain: Target[];
  timeoutMs: number;
  web?: boolean;
  group?: string;
  effort?: string;
  /** Run this in the worker's tree after it succeeded; a failure is exit 6. */
  verify?: string;
  /** A follow-up in the worker session of an earlier run. */
  continues?: { run: string; sessionId: string; sessionTotals?: Record<string, number> };
  /** Caps that stop the worker when reached. */
  caps?: Caps;
  /** Isolate mode: ignored folders to link into the copy. */
  links?: string[];
  /** Isolate mode without a sandbox: run even when links lead out of the copy. */
  allowLinks?: boolean;
  /** The configured host the workers run on (its config is frozen in `settings.host`). */
  host?: string;
  /** A follow-up's host config as its run froze it (moved into `settings.host`). */
  hostConfig?: unknown;
  /** Write and isolate mode: the worker sees the tree's secret-looking files. */
  allowSecrets?: boolean;
  /** A crew's run: its task's place among the tasks given together (`apply -g` keeps it). */
  taskIndex?: number;
  /** An isolate follow-up: the copy it reuses and the state that copy was made at. */
  reuse?: { copyRoot: string; links: string[]; before: TreeSnapshot; repoRoot: string };
  /** Files attached to the task (their contents are in `task`). */
  files?: { path: string; bytes: number }[];
  /** The settings resolved for this run. */
  settings?: FrozenSettings;
  /** Ask again: the answer cache is not consulted (`--fresh`). */
  fresh?: boolean;
  /** A plan run: the plan and task it implements. */
  plan?: PlanRef;
  /** A review run: what it reviews. */
  review?: ReviewInfo;
  /** Said about how the run was set up (the budget, a ranked chain); shown in its report. */
  notes?: string[];
  /** `--audit` / `--no-audit`. */
  auditWanted?: boolean;
  /** Wait for a cooling chain to come back instead of failing (`--park`). */
  park?: boolean;
  /** An audit run or its correction round: the run it re-checks. */
  auditOf?: AuditOf;
}

/** Creates the run folder and its queued record. */
export async function createRun(sys: HeldSys, spec: NewRun): Promise<RunRecord> {
  const paths = sys.state.paths;
  const id = newRunId(sys);
  await sys.state.runs.create(id);
  const record: RunRecord = {
    schemaVersion: RECORD_SCHEMA,
    id,
    state: "queued",
    mode: spec.mode,
    task: spec.task,
    cwd: spec.cwd,
    chain: spec.chain,
    web: spec.web ?? false,
    timeoutMs: spec.timeoutMs,
    createdAt: spec.askedAt ?? sys.clock.now(),
    attempts: [],
    progress: emptyProgress(),
    ...(spec.group === undefined ? {} : { group: spec.group }),
    ...(spec.effort === undefined ? {} : { effort: spec.effort }),
    ...(spec.verify === undefined ? {} : { verifyCommand: spec.verify }),
    ...(spec.continues === undefined ? {} : { continues: spec.continues }),
    ...(spec.caps === undefined || Object.keys(spec.caps).length === 0 ? {} : { caps: spec.caps }),
    ...(spec.files === undefined ? {} : { files: spec.files }),
    ...(spec.settings === undefined ? {} : { settings: spec.settings }),
    ...(spec.allowLinks === true ? { allowLinks: true } : {}),
    ...(spec.host === undefined ? {} : { host: spec.host }),
    ...(spec.allowSecrets === true ? { allowSecrets: true } : {}),
    ...(spec.taskIndex === undefined ? {} : { taskIndex: spec.taskIndex }),
    ...(spec.fresh === true ? { fresh: true } : {}),
    ...(spec.park === true ? { park: true } : {}),
    ...(spec.plan === undefined ? {} : { plan: spec.plan }),
    ...(spec.review === undefined ? {} : { review: spec.review }),
    ...(spec.notes === undefined || spec.notes.length === 0 ? {} : { notes: [...spec.notes] }),
    ...(spec.auditWanted === undefined ? {} : { auditWanted: spec.auditWanted }),
    ...(spec.auditOf === undefined ? {} : { auditOf: spec.auditOf }),
  };
  if (spec.reuse !== undefined) {
    record.isolation = { copyRoot: spec.reuse.copyRoot, links: spec.reuse.links };
    record.repoRoot = spec.reuse.repoRoot;
    record.changes = { before: spec.reuse.before, after: spec.reuse.before.tree, files: [] };
  } else if (MODES[spec.mode].usesCopy) {
    record.isolation = { copyRoot: join(paths.copies, id), links: spec.links ?? [] };
  }
  try {
    await sys.state.runs.write(record);
    await markActive(paths, id);
    await markRecent(paths, id);
  } catch (error) {
    // No half-made run stays behind (a full disk fails here): its folder and markers go.
    await removeRunFiles(paths, id);
    throw error;
  }
  return record;
}

/** Removes a run's folder and markers; a failure to is not the error to report (never throws). */
async function removeRunFiles(paths: StatePaths, id: string): Promise<void> {
  await Promise.allSettled([
    removeIfThere(paths.run(id).dir),
    removeIfThere(join(paths.root, "active", id)),
    removeIfThere(join(paths.root, "recent", id)),
  ]);
}

/**
 * Takes back a created run that never started (still queued, no supervisor ever took it): a
 * write that failed right after `createRun` (a full disk) leaves nothing behind. A run that
 * did start is left as it is. Never throws.
 */
export async function discardUnstarted(sys: HeldSys, id: string): Promise<void> {
  const paths = sys.state.paths;
  const record = await sys.state.runs.read(id).catch(() => null);
  if (record !== null && (record.state !== "queued" || record.supervised === true)) return;
  await removeRunFiles(paths, id);
}
