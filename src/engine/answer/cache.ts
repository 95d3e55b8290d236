/**
 * The answer cache: the same question, asked the same way (mode, worker chain and models,
 * effort), in the same folder of the same tree state (the snapshot's tree id covers tracked,
 * modified and untracked files; attached files are in the task text and listed with their
 * sizes) within `cacheDays` gets the earlier answer back without a worker. Only an answer that
 * held up is reused: its run is done, every reference it cites was verified (at least one), no
 * evidence check flagged it and no audit disputed it. Read runs only; never follow-ups, `--web`,
 * crew tasks or `--fresh` runs (evals ask with `fresh`).
 *
 * The index is one small file per key in the state dir (`answers/<key>.json`, naming the run);
 * the answer itself stays in that run's record. A cached run is a run of its own (so `wait`,
 * `show` and the history see it) with no attempts, no tokens and no receipt: what the answer
 * cost and saved is counted once, on the run that made it.
 */
import type { HeldSys } from "../../store/state.ts";
import { readJsonOrNull, writeJsonAtomic } from "../../sys/atomic.ts";
import type { RunRecord } from "../../store/record.ts";
import { join } from "../../sys/path.ts";
import type { Final } from "../core/final.ts";
import type { Workspace } from "../tree/workspace.ts";
import { MODES } from "../../workers/modes.ts";

const DAY_MS = 86_400_000;

/** True when a run may be answered from, and remembered in, the cache. */
export function cacheable(record: RunRecord): boolean {
  return MODES[record.mode].answerOnly && record.continues === undefined && !record.web &&
    record.taskIndex === undefined && (record.settings?.cacheDays ?? 0) > 0 &&
    // An audit or a review asked again is asked again: its point is a fresh look.
    record.auditOf === undefined && record.review === undefined;
}

/** The cache key of a run on a tree (hex SHA-256 of everything the answer depends on). */
export async function cacheKey(record: RunRecord, tree: string): Promise<string> {
  const input = JSON.stringify({
    v: 1,
    task: record.task,
    mode: record.mode,
    // A target without a model runs the config's default model for its worker then.
    chain: record.chain.map((t) => [
      t.worker,
      t.model ?? record.settings?.config?.models?.[t.worker] ?? null,
    ]),
    effort: record.effort ?? null,
    cwd: record.cwd,
    repo: record.repoRoot ?? null,
    tree,
    files: (record.files ?? []).map((f) => [f.path, f.bytes]),
  });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** True when an audit of the run (written by `pitroom audit`) disputes its answer. */
export function auditDisputed(record: RunRecord): boolean {
  const audit = (record as { audit?: unknown }).audit;
  if (typeof audit !== "object" || audit === null) return false;
  const { verdict, disputed } = audit as { verdict?: unknown; disputed?: unknown };
  if (typeof verdict === "string" && verdict.toUpperCase() !== "AGREE") return true;
  return Array.isArray(disputed) && disputed.length > 0;
}

/** True when a finished run's answer held up well enough to be given again. */
export function heldUp(record: RunRecord): boolean {
  const refs = record.refs;
  return record.state === "done" && record.outcome === "ok" && record.cached === undefined &&
    (record.answer ?? "").trim() !== "" && refs !== undefined && refs.total > 0 &&
    refs.verified === refs.total && (record.evidence?.length ?? 0) === 0 &&
    !auditDisputed(record);
}

/** The earlier run whose answer a run can be given, or null. */
export async function lookupAnswer(
  sys: HeldSys,
  record: RunRecord,
  key: string,
): Promise<RunRecord | null> {
  if (record.fresh === true) return null;
  const entry = await readJsonOrNull(join(sys.state.paths.answers, `${key}.json`));
  if (typeof entry !== "object" || entry === null) return null;
  const run = (entry as { run?: unknown }).run;
  if (typeof run !== "string" || run === record.id) return null;
  const earlier = await sys.state.runs.read(run);
  if (earlier === null || earlier.cacheKey !== key || !heldUp(earlier)) return null;
  const days = record.settings?.cacheDays ?? 0;
  const ended = earlier.endedAt ?? 0;
  return sys.clock.now() - ended <= days * DAY_MS ? earlier : null;
}

/** Remembers a finished run's answer under its key when it held up. */
export async function rememberAnswer(sys: HeldSys, record: RunRecord): Promise<void> {
  if (record.cacheKey === undefined || !heldUp(record)) return;
  const dir = sys.state.paths.answers;
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await writeJsonAtomic(join(dir, `${record.cacheKey}.json`), { run: record.id });
}

/** Makes `record` the cached copy of `earlier`'s answer (checks and sections included). */
export function answerFromCache(record: RunRecord, earlier: RunRecord): string {
  record.cached = { from: earlier.id, at: earlier.endedAt ?? earlier.createdAt };
  if (earlier.refs !== undefined) record.refs = structuredClone(earlier.refs);
  if (earlier.sections !== undefined) record.sections = structuredClone(earlier.sections);
  return earlier.answer ?? "";
}

/** The earlier answer of the same question on the same tree, when the cache may give it. */
export async function cachedAnswer(
  sys: HeldSys,
  record: RunRecord,
  workspace: Workspace,
): Promise<Final | null> {
  if (!cacheable(record)) return null;
  record.cacheKey = await cacheKey(record, workspace.before.tree);
  const earlier = await lookupAnswer(sys, record, record.cacheKey);
  if (earlier === null) return null;
  return { outcome: "ok", answer: answerFromCache(record, earlier) };
}
