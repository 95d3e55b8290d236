/**
 * The text report of a run (the `RunReport` the engine gives; `--json` prints it as is). A long
 * answer or a long list of changed files is clipped to a readable length with a line saying so;
 * `{ full: true }` (`show --full`) prints it whole.
 */
import { safe, safeLine, safeText } from "./safe.ts";
import { planReportHead } from "./plan_report.ts";
import { MODES, type RunReport } from "../engine/mod.ts";
import {
  formatUntil,
  grouped,
  hiddenLine,
  receiptLines,
  refsLabel,
  runTime,
  targetLabel,
  workerOf,
} from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import { auditLines } from "./audit_lines.ts";

const STATUS_LETTER = { added: "A", modified: "M", deleted: "D" } as const;

/** One changed file of a report. */
type ChangedFile = NonNullable<RunReport["changes"]>["files"][number];

/** Lines of an answer shown before it is clipped. */
export const ANSWER_LINES = 200;
/** Changed files listed before the list is clipped. */
export const FILE_LINES = 100;

/** Options of `renderReport`. */
export interface ReportOptions {
  /** Print a long answer and every changed file. @default false */
  full?: boolean;
  /** The tool calls the worker's permissions refused, from the run's events (`deniedCalls`). */
  denied?: DeniedCall[];
}

/** A refused tool call as the report lists it. */
export interface DeniedCall {
  kind: string;
  target: string;
  message?: string;
}

/** The refused tool calls among a run's events, each with the refusal's message when given. */
export function deniedCalls(events: readonly { type: string }[]): DeniedCall[] {
  const calls: DeniedCall[] = [];
  for (const ev of events as readonly Record<string, unknown>[]) {
    if (ev.type === "worker.tool_call" && ev.status === "denied") {
      calls.push({ kind: String(ev.kind), target: String(ev.target) });
    } else if (ev.type === "worker.denied" && typeof ev.message === "string") {
      const open = calls.findLast((c) => c.message === undefined);
      if (open) open.message = ev.message;
    }
  }
  return calls;
}

function count(value: number, one: string, many = `${one}s`): string {
  return `${value} ${value === 1 ? one : many}`;
}

/**
 * How many calls were refused: the record's own count where the engine keeps one
 * (`progress.denied`), else the refused calls given from the events.
 */
function deniedCount(progress: RunRecord["progress"], given: DeniedCall[] | undefined): number {
  const kept = (progress as { denied?: unknown }).denied;
  return typeof kept === "number" ? kept : given?.length ?? 0;
}

type RunRecord = RunReport;

export { runTime };

/** Who worked on a run: the last attempt's target. */
export const workerLabel: (record: RunRecord) => string = workerOf;

function clipped(lines: string[], max: number, full: boolean, what: string, id: string): string[] {
  if (full || lines.length <= max) return lines;
  return [
    ...lines.slice(0, max),
    `  … ${lines.length - max} more ${what} (\`pitroom show ${id} --full\` prints them all)`,
  ];
}

function n(value: number): string {
  return grouped(value);
}

/** The full text report of a run. */
export function renderReport(
  record: RunRecord,
  now: number,
  options: ReportOptions = {},
): string {
  const full = options.full === true;
  const lines: string[] = [];
  const p = record.progress;
  lines.push(...planReportHead(record));
  lines.push(
    `run ${record.id} · ${record.state} · ${record.mode} · ${formatDuration(runTime(record, now))}`,
  );
  lines.push(`worker   ${workerLabel(record)}`);
  const fallbacks = record.attempts.slice(0, -1);
  for (const a of fallbacks) {
    lines.push(
      `         tried ${targetLabel(a)} first: ${a.outcome ?? "?"}${
        a.message ? ` (${safeLine(a.message, 80)})` : ""
      }`,
    );
  }
  for (const skipped of record.skipped ?? []) {
    lines.push(
      `         skipped ${targetLabel(skipped)}: cooling down until ${
        formatUntil(skipped.until, now)
      }`,
    );
  }
  const denied = deniedCount(p, options.denied);
  lines.push(
    `work     ${count(p.steps, "step")}, ${count(p.tools, "tool call")}${
      denied > 0 ? ` (${denied} denied)` : ""
    }${p.last ? ` · last: ${safeLine(p.last, 60)}` : ""}`,
  );
  for (const call of options.denied ?? []) {
    lines.push(
      `denied   ${safeLine(`${call.kind} ${call.target}`, 70)}${
        call.message ? `: ${safeLine(call.message, 80)}` : ""
      }`,
    );
  }
  const cached = p.tokens.cached ? ` (+${n(p.tokens.cached)} cached)` : "";
  const reasoning = p.tokens.reasoning ? ` / ${n(p.tokens.reasoning)} reasoning` : "";
  const cost = p.cost && !record.receipt ? ` · $${p.cost.toFixed(4)}` : "";
  const told = p.tokens.input + p.tokens.cached + p.tokens.output + p.tokens.reasoning > 0;
  lines.push(
    p.tokensUnreported === true && !told
      ? "tokens   not reported by the worker"
      : `tokens   ${n(p.tokens.input)} in${cached} / ${n(p.tokens.output)} out${reasoning}${cost}${
        p.tokensUnreported === true ? " (and more not reported by the worker)" : ""
      }`,
  );
  if (record.receipt) lines.push(...receiptLines(record.receipt));
  if (record.message && record.state !== "done") lines.push(`problem  ${safe(record.message)}`);
  lines.push(...answerCheckLines(record, now));
  for (const note of record.notes ?? []) lines.push(`note     ${safe(note)}`);
  if (record.hidden) lines.push(`hidden   ${safe(hiddenLine(record.hidden))}`);
  const verify = record.verify;
  if (verify) {
    const how = verify.ok
      ? "passed"
      : verify.timedOut
      ? "ran out of time"
      : `failed (exit ${verify.code ?? "signal"})`;
    lines.push(`verify   \`${safe(verify.command)}\` ${how} in ${formatDuration(verify.ms)}`);
    if (!verify.ok && verify.output.trim()) {
      lines.push(
        ...safeText(verify.output).trimEnd().split("\n").slice(-15).map((l) => `         ${l}`),
      );
    }
  }
  if (record.answer) {
    const answer = safeText(record.answer).trimEnd().split("\n").map((l) => `  ${l}`);
    lines.push("", "answer:", ...clipped(answer, ANSWER_LINES, full, "lines", record.id));
  } else if (record.state === "done") {
    lines.push("", "answer: (the worker gave no text)");
  }
  lines.push(...auditLines(record));
  const changes = record.changes;
  if (changes && changes.files.length > 0) {
    const added = changes.files.reduce((s, f) => s + f.added, 0);
    const removed = changes.files.reduce((s, f) => s + f.removed, 0);
    const verb = changes.reverted ? "changed (undone)" : "changed";
    lines.push("", `${verb} ${changes.files.length} file(s), +${added} -${removed}:`);
    const shown = changes.files.map((f) => safe(f.path));
    const width = Math.max(...shown.map((path) => path.length));
    const fileLines = changes.files.map((f, i) =>
      `  ${STATUS_LETTER[f.status]} ${shown[i]!.padEnd(width)}  ${fileStat(f)}${sharedMark(f)}`
    );
    lines.push(...clipped(fileLines, FILE_LINES, full, "files", record.id));
    const isolation = MODES[record.mode].usesCopy ? record.isolation : undefined;
    if (isolation?.applying) {
      lines.push("", "its apply was cut short: your tree holds part of its changes");
      lines.push(`finish it:    pitroom apply ${record.id}`);
      lines.push(`or take it back: pitroom revert ${record.id}`);
    } else if (changes.reverting) {
      lines.push("", "its revert was cut short: your tree holds part of its changes");
      lines.push(`finish it:    pitroom revert ${record.id}`);
    } else if (isolation?.applied && changes.reverted) {
      lines.push(
        "",
        `applied to your tree at ${formatUntil(isolation.applied.at, now)}, then undone`,
      );
      lines.push(`apply again:  pitroom apply ${record.id}`);
    } else if (isolation?.applied) {
      lines.push("", `applied to your tree at ${formatUntil(isolation.applied.at, now)}`);
    } else if (isolation) {
      lines.push("", `see the diff: pitroom show ${record.id} --patch`);
      lines.push(`apply it:     pitroom apply ${record.id}`);
      if (!isolation.discarded) lines.push(`or drop it:   pitroom discard ${record.id}`);
    } else if (!changes.reverted) {
      lines.push("", `see the diff: pitroom show ${record.id} --patch`);
      lines.push(`undo it:      pitroom revert ${record.id}`);
    }
  } else if (MODES[record.mode].keepsChanges && record.state === "done") {
    lines.push("", "changed no files");
  }
  lines.push(...otherLines(record), ...movedLines(record), ...leftLines(record));
  return lines.join("\n") + "\n";
}

/** Where a cached answer came from, the reference check and the evidence flags. */
function answerCheckLines(record: RunRecord, now: number): string[] {
  const lines: string[] = [];
  if (record.cached) {
    lines.push(
      `cached   the answer of run ${record.cached.from} (ended ${
        formatUntil(record.cached.at, now)
      }); no worker ran, --fresh asks again`,
    );
  }
  const refs = record.refs;
  if (refs) {
    lines.push(`refs     ${refsLabel(refs)} verified`);
    for (const f of refs.failed) {
      lines.push(`         ✗ ${safeLine(f.ref, 60)}: ${safeLine(f.reason, 100)}`);
    }
  }
  for (const flag of record.evidence ?? []) lines.push(`flagged  ${safeLine(flag.message, 160)}`);
  return lines;
}

/** A changed file's line counts (or "binary"), and its mode change when there is one. */
export function fileStat(f: ChangedFile): string {
  const mode = f.mode ? `mode ${f.mode.from} -> ${f.mode.to}` : "";
  if (mode !== "" && !f.binary && f.added === 0 && f.removed === 0) return mode;
  const stat = f.binary ? "binary" : `+${f.added} -${f.removed}`;
  return mode === "" ? stat : `${stat}, ${mode}`;
}

/** What moved in the repository while a write run worked, and that revert needs --force. */
function movedLines(record: RunReport): string[] {
  const moved = record.changes?.moved;
  if (moved === undefined) return [];
  const short = (commit: string | null) => commit?.slice(0, 12) ?? "no commit";
  const what = [
    moved.head ? `HEAD moved (${short(moved.head.from)} -> ${short(moved.head.to)})` : "",
    moved.index ? "the index or the stash changed" : "",
  ].filter(Boolean).join(" and ");
  return [
    "",
    `while it worked, ${what}: a commit, a branch switch, a stash or a reset`,
    `revert checks that first: pitroom revert ${record.id} --force`,
  ];
}

/** Files a revert left as they were: the worker's changes could not be taken out alone. */
function leftLines(record: RunReport): string[] {
  const left = record.changes?.left ?? [];
  if (left.length === 0) return [];
  return [
    "",
    "not reverted (the worker's changes cannot be taken out without yours):",
    ...left.map((f) =>
      `  ${safe(f.path)}: ${safe(f.why)}${f.kept ? `; versions kept in ${safe(f.kept)}` : ""}`
    ),
  ];
}

/** What a file the user changed too is, beside the worker's line counts. */
function sharedMark(f: ChangedFile): string {
  if (f.shared === "split") return "  (you changed it too: these are the worker's lines only)";
  if (f.shared === "unsure") {
    return "  (you changed it too, too close to the worker's edit to tell)";
  }
  return "";
}

/** The files changed while a write run worked that no tool call of its worker could have made. */
function otherLines(record: RunRecord): string[] {
  const others = record.changes?.others ?? [];
  if (others.length === 0) return [];
  if (others.every((f) => f.shared !== undefined) && !record.changes?.othersReverted) {
    // Only the user's own lines in files the worker changed too: revert keeps them.
    return [
      "",
      "your own edits while the run worked, in files the worker changed too; revert keeps them:",
      ...others.map((f) => `  ${STATUS_LETTER[f.status]} ${safe(f.path)}`),
    ];
  }
  const how = record.changes?.othersReverted
    ? " (undone)"
    : `; revert leaves them (pitroom revert ${record.id} --all takes them too)`;
  return [
    "",
    `changed while the run worked, not by a tool the worker called${how}:`,
    ...others.map((f) =>
      `  ${STATUS_LETTER[f.status]} ${safe(f.path)}${
        f.shared === undefined ? "" : "  (your edits in a file the worker changed too)"
      }`
    ),
  ];
}

/** One status line of a run. */
export function renderBrief(record: RunRecord, now: number): string {
  const result = record.sections?.summary || record.answer || record.message ||
    record.progress.last || record.task;
  return `${record.id}  ${record.state}  ${record.mode}  ${formatDuration(runTime(record, now))}  ${
    workerLabel(record)
  }  ${safeLine(result, 80)}\n`;
}
