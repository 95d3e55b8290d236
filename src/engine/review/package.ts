/**
 * The package a reviewer gets, built on this machine and redacted before it leaves it.
 *
 * - A task review: the brief (the task of the first run of its `--continue` chain), the
 *   implementer's report and the run's diff with 10 lines of context.
 * - A fix round (the run continues a reviewed run): only the diff of the fix (the earlier run's
 *   tree to this one's) and the previous review's findings.
 * - A range review: the commits of `A..B`, the diff from the merge base, and with a plan the
 *   plan's text, its Global Constraints and every note.
 *
 * Refused (exit 3): a live run, a read run, a run that changed nothing, a review.
 */
import type { HeldSys } from "../../store/state.ts";
import { isFinal, type ReviewInfo, type RunRecord } from "../../store/record.ts";
import { RefusedError, UsageError } from "../../sys/errors.ts";
import { findRepo, GitError, rangeDiffText, repoKey, treeDiffText } from "../../vcs/mod.ts";
import type { LoadedPlan } from "../plan/load.ts";
import type { PlanNote } from "../plan/notes.ts";
import { fill } from "../plan/templates.ts";
import { redactContent, redactDiff } from "./redact.ts";
import { MODES } from "../../workers/modes.ts";

/** Lines of context around each change in a package's diff. */
export const REVIEW_CONTEXT = 10;

/** A diff longer than this (characters) is clipped at a line, saying how much was left out. */
export const MAX_DIFF_CHARS = 600_000;

/** A diff cut to `max` characters at a line end, with a line saying what was left out. */
export function clipDiff(diff: string, max = MAX_DIFF_CHARS): string {
  if (diff.length <= max) return diff;
  const cut = diff.lastIndexOf("\n", max);
  const kept = diff.slice(0, cut < 0 ? max : cut);
  const left = diff.slice(kept.length).split("\n").filter((l) => l !== "").length;
  return `${kept}\n[the diff is clipped here: ${left} more lines are not shown; what they change is CANNOT VERIFY]\n`;
}

/** A package, ready to be a read run's task. */
export interface ReviewPackage {
  /** The reviewer's prompt: the template for the kind, with the package in it. */
  text: string;
  info: ReviewInfo;
}

/** A Markdown fence longer than any run of backticks in the text. */
function fenced(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n$/, "")}\n${fence}`;
}

function section(title: string, body: string): string {
  return `## ${title}\n\n${body.trim() === "" ? "(none)" : body.trim()}`;
}

/** Redacts every part, the diff by file name too; counts what was taken out. */
function assemble(
  parts: { title: string; body: string; diff?: boolean }[],
): { text: string; redacted: ReviewInfo["redacted"] } {
  const files: string[] = [];
  let secrets = 0;
  const out: string[] = [];
  for (const part of parts) {
    if (part.diff) {
      const r = redactDiff(clipDiff(part.body));
      files.push(...r.files);
      secrets += r.secrets;
      out.push(section(part.title, r.text.trim() === "" ? "" : fenced(r.text, "diff")));
    } else {
      const r = redactContent(part.body);
      secrets += r.secrets;
      out.push(section(part.title, r.text));
    }
  }
  return { text: out.join("\n\n"), redacted: { files, secrets } };
}

/** Refuses a run that cannot be reviewed (see the module comment). */
export function checkReviewable(record: RunRecord): void {
  const id = record.id;
  if (record.review !== undefined) {
    throw new RefusedError(
      "review_of_review",
      `Run "${id}" is a review: review the run it reviewed`,
    );
  }
  if (!isFinal(record.state)) {
    throw new RefusedError("run_live", `Run "${id}" is still ${record.state}`, {
      hint: `wait for it with \`pitroom wait ${id}\``,
    });
  }
  if (!MODES[record.mode].keepsChanges) {
    throw new RefusedError("read_run", `Run "${id}" is a read run: it has no change to review`);
  }
  if (record.changes === undefined || record.changes.files.length === 0) {
    throw new RefusedError(
      "no_changes",
      `Run "${id}" changed no files: there is nothing to review`,
    );
  }
}

/** The diff between two trees of a run's repository, with review context. */
async function treeDiff(sys: HeldSys, record: RunRecord, before: string, after: string) {
  const root = record.repoRoot ?? record.cwd;
  const repo = await findRepo(sys, root);
  if (repo === null) throw new RefusedError("no_repo", `"${root}" is no longer a git repository`);
  const objectsDir = sys.state.paths.repo(await repoKey(repo.root)).objects;
  return await treeDiffText(sys, repo, { objectsDir, before, after, context: REVIEW_CONTEXT });
}

/** The run a follow-up chain started with (its task is the brief). */
async function rootOf(sys: HeldSys, record: RunRecord): Promise<RunRecord> {
  let current = record;
  for (let hops = 0; current.continues !== undefined && hops < 100; hops++) {
    const prev = await sys.state.runs.read(current.continues.run);
    if (prev === null) break;
    current = prev;
  }
  return current;
}

function findingsText(prev: RunRecord): string {
  const last = prev.reviews?.at(-1);
  if (last === undefined) return "";
  const lines = [
    `SPEC: ${last.spec ?? "(missing)"}`,
    `QUALITY: ${last.quality ?? "(missing)"}`,
    ...last.findings.map((f) => `- [${f.severity}] ${f.text}`),
  ];
  if (last.cannotVerify.length > 0) {
    lines.push("CANNOT VERIFY:", ...last.cannotVerify.map((c) => `- ${c}`));
  }
  return lines.join("\n");
}

/** The package of a run's review: a task review, or a fix round's. */
export async function runPackage(sys: HeldSys, record: RunRecord): Promise<ReviewPackage> {
  checkReviewable(record);
  const changes = record.changes!;
  const implementer = record.attempts.at(-1)?.worker ?? record.chain[0]?.worker;
  const prev = record.continues === undefined
    ? null
    : await sys.state.runs.read(record.continues.run);
  const base = {
    of: record.id,
    ...(implementer === undefined ? {} : { implementer }),
    ...(record.plan === undefined ? {} : { plan: record.plan.path }),
  };
  if (prev !== null && (prev.reviews?.length ?? 0) > 0 && prev.changes !== undefined) {
    const diff = await treeDiff(sys, record, prev.changes.after, changes.after);
    if (diff.trim() === "") {
      throw new RefusedError(
        "no_changes",
        `Run "${record.id}" changed nothing since run "${prev.id}": there is no fix to review`,
      );
    }
    const { text, redacted } = assemble([
      { title: "Previous findings", body: findingsText(prev) },
      { title: `The fix's diff (${REVIEW_CONTEXT} lines of context)`, body: diff, diff: true },
    ]);
    return {
      text: fill("fix-reviewer", { package: text }),
      info: { kind: "fix", ...base, previous: prev.id, redacted },
    };
  }
  const root = await rootOf(sys, record);
  const diff = await treeDiff(sys, record, changes.before.tree, changes.after);
  const { text, redacted } = assemble([
    { title: "Brief", body: root.task },
    ...(root.id === record.id ? [] : [{ title: "Follow-up instructions", body: record.task }]),
    { title: "Implementer's report", body: record.answer ?? "" },
    { title: `Diff (${REVIEW_CONTEXT} lines of context)`, body: diff, diff: true },
  ]);
  return {
    text: fill("task-reviewer", { package: text }),
    info: { kind: "task", ...base, redacted },
  };
}

/** `A..B` or `A...B` split into its ends. */
export function parseRange(typed: string): { from: string; to: string } {
  const m = /^(.+?)\.\.\.?(.+)$/.exec(typed.trim());
  if (m === null || m[1]!.trim() === "" || m[2]!.trim() === "") {
    throw new UsageError(`Range "${typed}" is not of the form A..B`, {
      hint: 'pitroom review --range "$(git merge-base main HEAD)..HEAD"',
    });
  }
  return { from: m[1]!.trim(), to: m[2]!.trim() };
}

function notesText(notes: readonly PlanNote[]): string {
  return notes.map((n) => `- ${new Date(n.at).toISOString()} ${n.text}`).join("\n");
}

/** The package of a range review (with a plan: its text, constraints and notes). */
export async function rangePackage(
  sys: HeldSys,
  dir: string,
  typed: string,
  plan?: { loaded: LoadedPlan; text: string; notes: readonly PlanNote[] },
): Promise<ReviewPackage> {
  const { from, to } = parseRange(typed);
  const repo = await findRepo(sys, dir);
  if (repo === null) throw new RefusedError("not_a_repo", `"${dir}" is not in a git repository`);
  let range;
  try {
    range = await rangeDiffText(sys, repo.root, { from, to, context: REVIEW_CONTEXT });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new UsageError(`Range "${typed}" does not name two commits: ${error.message}`);
  }
  if (range.diff.trim() === "") {
    throw new RefusedError(
      "no_changes",
      `Range "${typed}" changes nothing: there is nothing to review`,
    );
  }
  const { text, redacted } = assemble([
    ...(plan === undefined ? [] : [
      { title: "Plan", body: fenced(plan.text, "markdown") },
      { title: "Global Constraints", body: plan.loaded.plan.constraints },
      { title: "Controller's notes", body: notesText(plan.notes) },
    ]),
    { title: `Commits (${range.commits.length}, oldest first)`, body: range.commits.join("\n") },
    {
      title: `Diff from the merge base ${
        range.base.slice(0, 12)
      } (${REVIEW_CONTEXT} lines of context)`,
      body: range.diff,
      diff: true,
    },
  ]);
  return {
    text: fill("branch-reviewer", { package: text }),
    info: {
      kind: "range",
      range: { typed, base: range.base, head: range.head, commits: range.commits.length },
      ...(plan === undefined ? {} : { plan: plan.loaded.path }),
      redacted,
    },
  };
}
