/**
 * A run as an agent is handed it (pure): what it needs to act on the run (where it stands, the
 * answer or the problem, the files it changed with their counts, how the answer's references and
 * claims held, verdicts, what to do next, the receipt) and nothing of how Pitroom ran it (no
 * pids, cache keys, settings, attempts or snapshots: the report, `show --json`, has those). The
 * MCP tools' results are briefs; `briefText` is the same brief as text. Next actions are said as
 * the face that hands the brief over takes them: MCP tool calls or CLI commands.
 */
import type { OutcomeClass, RunState } from "../../events/mod.ts";
import type { Mode } from "../../workers/names.ts";
import { MODES } from "../../workers/modes.ts";
import { isFinal, type RunRecord } from "../../store/record.ts";
import { receiptLine } from "../../receipts/lines.ts";
import { formatDuration } from "../../sys/duration.ts";
import { oneLine } from "../../sys/text.ts";
import { targetLabel } from "../core/chain.ts";
import { refsLabel, runTime, workerOf } from "./fold.ts";

/** A run as an agent is handed it. */
export interface RunBrief {
  id: string;
  state: RunState;
  /** How a final run ended (`ok`, `failed`, `timeout`, ...). */
  outcome?: OutcomeClass;
  /** A final run's exit code when not 0 (1 failed, 3 refused, 4 timeout, 5, 6, ...). */
  exit?: number;
  mode: Mode;
  /** The worker and model (the last attempt's). */
  worker: string;
  /** Wall time so far, or the run's. */
  time: string;
  /** The task, clipped (listings only, to tell runs apart). */
  task?: string;
  group?: string;
  /** A live run: its steps, tool calls and last action (or its place in the queue). */
  progress?: string;
  /** A run that did not end well: why. */
  problem?: string;
  answer?: string;
  /** The files the worker changed: `M path +added -removed`, at most FILE_LIMIT. */
  changed?: string[];
  /** The answer's `path:line` references: `2/3 verified`, and each that did not hold. */
  refs?: string;
  /** Claims of the answer the run or the tree contradict. */
  flagged?: string[];
  /** `--verify`: passed, or failed with the end of its output. */
  verify?: string;
  /** A review run's verdict (`SPEC PASS · QUALITY NEEDS-FIXES`). */
  verdict?: string;
  /** This run's latest review (`SPEC PASS · QUALITY APPROVED (review RUN)`). */
  reviewed?: string;
  /** The audit of the answer: its verdict and who gave it, or that it runs or failed. */
  audit?: string;
  /** The claims the audit disputed. */
  disputed?: string[];
  /** The audit's correction round's answer (the answer above stays the first one). */
  corrected?: string;
  /** A plan run's implementer status. */
  status?: string;
  /** Answered from the answer cache: which earlier run. */
  cached?: string;
  /** Tool calls the worker's permissions refused. */
  denied?: number;
  /**
   * What to do next, as the face takes it: MCP tools (a bare name takes this run: `{"run": id}`,
   * or `{"runs": [id]}` for pitroom_wait), or CLI commands.
   */
  next?: string[];
  /** The receipt in one line. */
  receipt?: string;
}

/** How next actions are said. */
export type Face = "mcp" | "cli";

/** Options of `runBrief`. */
export interface BriefOptions {
  /** Phrase next actions as MCP tool calls or CLI commands. @default "mcp" */
  face?: Face;
  /**
   * `full`: everything an agent acts on. `line`: a listing's entry: where the run stands, its
   * task and problem, no answer, changes, receipt or next actions. `verdict`: `full` without the
   * answer (an audit's result, whose agent has the answer already). @default "full"
   */
  detail?: "full" | "line" | "verdict";
}

/** Changed files listed before the rest is counted. */
export const FILE_LIMIT = 100;
/** Failed references listed. */
const REFS_LIMIT = 10;
/** Characters of a failed verify's output. */
const VERIFY_TAIL = 1500;

const STATUS_LETTER = { added: "A", modified: "M", deleted: "D" } as const;

/**
 * An action on run `id` as the face takes it: a bare MCP tool name when it takes the brief's own
 * run with no other argument (`pitroom_apply`), else the call (`pitroom_revert {"run": ..,
 * "force": true}`); a CLI command (`pitroom apply ID`).
 */
function action(face: Face, verb: string, id: string, own: boolean, force = false): string {
  if (face === "cli") return `pitroom ${verb} ${id}${force ? " --force" : ""}`;
  if (own && !force) return `pitroom_${verb}`;
  const args = verb === "wait" ? { runs: [id] } : { run: id, ...(force ? { force: true } : {}) };
  return `pitroom_${verb} ${JSON.stringify(args)}`;
}

function nextOf(run: RunRecord, face: Face): string[] {
  const id = run.id;
  const act = (verb: string, force = false) => action(face, verb, id, true, force);
  if (!isFinal(run.state)) return [act("wait")];
  const next: string[] = [];
  if (run.audit?.state === "running" && run.audit.run !== undefined) {
    next.push(action(face, "wait", run.audit.run, false));
  }
  const changes = run.changes;
  if (changes === undefined || changes.files.length === 0 || run.outcome === "refused") {
    return next;
  }
  const isolation = MODES[run.mode].usesCopy ? run.isolation : undefined;
  if (isolation?.applying) next.push(act("apply"), act("revert"));
  else if (changes.reverting) next.push(act("revert"));
  else if (isolation !== undefined && isolation.applied === undefined) {
    next.push(act("apply"));
    if (isolation.discarded === undefined) next.push(act("discard"));
  } else if (!changes.reverted && MODES[run.mode].keepsChanges) {
    next.push(act("revert", changes.moved !== undefined));
  }
  return next;
}

function changedOf(run: RunRecord, face: Face): string[] | undefined {
  const files = run.changes?.files ?? [];
  if (files.length === 0) return undefined;
  const lines = files.slice(0, FILE_LIMIT).map((f) => {
    const stat = f.binary ? "binary" : `+${f.added} -${f.removed}`;
    return `${STATUS_LETTER[f.status]} ${f.path} ${stat}${f.shared ? " (the user's too)" : ""}`;
  });
  if (files.length > FILE_LIMIT) {
    const more = face === "mcp"
      ? `pitroom_show ${JSON.stringify({ run: run.id, full: true })}`
      : `pitroom show ${run.id} --full`;
    lines.push(`… ${files.length - FILE_LIMIT} more (${more})`);
  }
  return lines;
}

function refsOf(run: RunRecord): string | undefined {
  const refs = run.refs;
  if (refs === undefined || refs.total === 0) return undefined;
  const failed = refs.failed.slice(0, REFS_LIMIT).map((f) => `✗ ${f.ref} (${f.reason})`);
  const more = refs.failed.length > REFS_LIMIT ? [`${refs.failed.length - REFS_LIMIT} more`] : [];
  return [`${refsLabel(refs)} verified`, ...failed, ...more].join("; ");
}

function verifyOf(run: RunRecord): string | undefined {
  const v = run.verify;
  if (v === undefined) return undefined;
  const took = formatDuration(v.ms);
  if (v.ok) return `\`${v.command}\` passed in ${took}`;
  const how = v.timedOut ? "ran out of time" : `failed (exit ${v.code ?? "signal"})`;
  const tail = v.output.trimEnd().slice(-VERIFY_TAIL);
  return `\`${v.command}\` ${how} in ${took}${tail ? `:\n${tail}` : ""}`;
}

function verdictOf(v: { spec?: string | undefined; quality?: string | undefined }): string {
  return [v.spec ? `SPEC ${v.spec}` : "", v.quality ? `QUALITY ${v.quality}` : ""]
    .filter(Boolean).join(" · ");
}

function auditOf(run: RunRecord): Pick<RunBrief, "audit" | "disputed" | "corrected"> {
  const audit = run.audit;
  if (audit === undefined) return {};
  const by = audit.worker === undefined
    ? ""
    : ` by ${
      targetLabel({ worker: audit.worker, ...(audit.model ? { model: audit.model } : {}) })
    }`;
  const at = audit.run ? ` (run ${audit.run})` : "";
  const said = audit.state === "running"
    ? `running${by}${at}`
    : audit.state === "failed"
    ? `failed${by}${at}: ${audit.message ?? "no verdict"}`
    : `${audit.verdict}${by}${at}`;
  return {
    audit: said,
    ...(audit.disputed.length > 0 ? { disputed: audit.disputed } : {}),
    ...(audit.fix?.answer !== undefined ? { corrected: audit.fix.answer } : {}),
  };
}

/** The brief of a run (pure): `now` times a live run. */
export function runBrief(run: RunRecord, now: number, options: BriefOptions = {}): RunBrief {
  const face = options.face ?? "mcp";
  const detail = options.detail ?? "full";
  const final = isFinal(run.state);
  const p = run.progress;
  const brief: RunBrief = {
    id: run.id,
    state: run.state,
    ...(final && run.outcome !== undefined ? { outcome: run.outcome } : {}),
    ...(final && run.exit !== undefined && run.exit !== 0 ? { exit: run.exit } : {}),
    mode: run.mode,
    worker: workerOf(run),
    time: formatDuration(runTime(run, now)),
  };
  if (detail === "line") brief.task = oneLine(run.task, 80);
  if (run.group !== undefined) brief.group = run.group;
  if (!final) {
    brief.progress = run.state === "queued"
      ? "queued"
      : `${p.steps} steps, ${p.tools} tool calls${p.last ? ` · last: ${p.last}` : ""}`;
  }
  if (final && run.state !== "done" && run.message) {
    brief.problem = detail === "line" ? oneLine(run.message, 200) : run.message;
  }
  if (detail === "line") return brief;
  if (detail === "full" && run.answer) brief.answer = run.answer;
  const changed = changedOf(run, face);
  if (changed !== undefined) brief.changed = changed;
  const refs = refsOf(run);
  if (refs !== undefined) brief.refs = refs;
  if (run.evidence !== undefined && run.evidence.length > 0) {
    brief.flagged = run.evidence.map((e) => e.message);
  }
  const verify = verifyOf(run);
  if (verify !== undefined) brief.verify = verify;
  if (run.review?.verdict !== undefined) brief.verdict = verdictOf(run.review.verdict);
  const review = run.reviews?.at(-1);
  if (review !== undefined) brief.reviewed = `${verdictOf(review)} (review ${review.run})`;
  Object.assign(brief, auditOf(run));
  if (run.implementer !== undefined) brief.status = run.implementer.status;
  if (run.cached !== undefined) {
    brief.cached = `the answer of run ${run.cached.from}; fresh: true asks again`;
  }
  if (p.denied !== undefined && p.denied > 0) brief.denied = p.denied;
  const next = nextOf(run, face);
  if (next.length > 0) brief.next = next;
  if (run.receipt !== undefined) brief.receipt = receiptLine(run.receipt);
  return brief;
}

/** A brief's head: `run ID · done ok`. */
export function briefHead(brief: RunBrief): string {
  const state = brief.outcome === undefined ? brief.state : `${brief.state} ${brief.outcome}`;
  return `run ${brief.id} · ${state}`;
}

/** The first line of a brief: `run ID · done ok · read · opencode (model) · 8s`. */
export function briefLine(brief: RunBrief): string {
  const state = brief.outcome === undefined ? brief.state : `${brief.state} ${brief.outcome}`;
  const parts = [`run ${brief.id}`, state, brief.mode, brief.worker, brief.time];
  if (brief.group !== undefined) parts.push(`group ${brief.group}`);
  if (brief.progress !== undefined) parts.push(brief.progress);
  return parts.join(" · ");
}

/** A brief as text: its line, then what it holds, one item a line (the answer as it is). */
export function briefText(brief: RunBrief): string {
  const lines = [briefLine(brief)];
  if (brief.task !== undefined) lines.push(`task: ${brief.task}`);
  if (brief.problem !== undefined) {
    lines.push(`problem (exit ${brief.exit ?? 1}): ${brief.problem}`);
  }
  if (brief.cached !== undefined) lines.push(`cached: ${brief.cached}`);
  if (brief.answer !== undefined) lines.push(brief.answer);
  if (brief.changed !== undefined) lines.push(`changed: ${brief.changed.join(", ")}`);
  const said: [keyof RunBrief, string][] = [
    ["refs", "refs"],
    ["verify", "verify"],
    ["verdict", "verdict"],
    ["reviewed", "reviewed"],
    ["status", "status"],
    ["audit", "audit"],
  ];
  for (const [key, label] of said) {
    if (brief[key] !== undefined) lines.push(`${label}: ${brief[key]}`);
  }
  for (const claim of brief.disputed ?? []) lines.push(`disputed: ${claim}`);
  if (brief.corrected !== undefined) lines.push(`corrected answer:\n${brief.corrected}`);
  for (const flag of brief.flagged ?? []) lines.push(`flagged: ${flag}`);
  if (brief.denied !== undefined) lines.push(`denied: ${brief.denied} tool call(s)`);
  if (brief.next !== undefined) lines.push(`next: ${brief.next.join(" · ")}`);
  if (brief.receipt !== undefined) lines.push(`receipt: ${brief.receipt}`);
  return lines.join("\n");
}
