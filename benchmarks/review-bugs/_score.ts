/**
 * Scoring one review of a planted bug (pure). A find: a Critical or Important finding that names
 * the changed file and a line within 5 of the planted one, or names the changed identifier.
 * Exact: such a finding with the line within 3. On a clean case, any Critical or Important
 * finding is a false alarm. A review without both verdict lines is a failed review: no find.
 */

/** A finding as `pitroom review --json` reports it. */
export interface Finding {
  severity: "Critical" | "Important" | "Minor";
  file?: string;
  line?: number;
  text: string;
}

/** What one case's review scored. */
export interface Score {
  find: boolean;
  exact: boolean;
  falseAlarm: boolean;
  failed: boolean;
}

/** The planted change a review is scored against (absent for a clean case). */
export interface Target {
  file: string;
  line: number;
  identifier?: string;
}

/** Within the lines of the planted one. */
export const FIND_LINES = 5;
/** Within the lines of the planted one, for an exact find. */
export const EXACT_LINES = 3;

function sameFile(named: string | undefined, file: string): boolean {
  if (named === undefined) return false;
  const a = named.replace(/^\.?\//, "");
  return a === file || file.endsWith(`/${a}`) || a.endsWith(`/${file}`);
}

function near(f: Finding, target: Target, lines: number): boolean {
  return sameFile(f.file, target.file) && f.line !== undefined &&
    Math.abs(f.line - target.line) <= lines;
}

/** Scores a review's findings against the planted change (`null`: a clean case). */
export function score(
  review: { complete: boolean; findings: readonly Finding[] },
  target: Target | null,
): Score {
  const serious = review.complete ? review.findings.filter((f) => f.severity !== "Minor") : [];
  if (target === null) {
    return { find: false, exact: false, falseAlarm: serious.length > 0, failed: !review.complete };
  }
  const id = target.identifier;
  const find = serious.some((f) =>
    near(f, target, FIND_LINES) ||
    (id !== undefined && new RegExp(`\\b${escape(id)}\\b`).test(f.text))
  );
  const exact = serious.some((f) => near(f, target, EXACT_LINES));
  return { find, exact, falseAlarm: false, failed: !review.complete };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The totals of a run of the benchmark. */
export interface Totals {
  bugs: number;
  finds: number;
  exact: number;
  clean: number;
  falseAlarms: number;
  failed: number;
}

/** Adds up scores (`clean` marks the false-alarm probes). */
export function totals(scores: readonly (Score & { clean: boolean })[]): Totals {
  const bugs = scores.filter((s) => !s.clean);
  const clean = scores.filter((s) => s.clean);
  return {
    bugs: bugs.length,
    finds: bugs.filter((s) => s.find).length,
    exact: bugs.filter((s) => s.exact).length,
    clean: clean.length,
    falseAlarms: clean.filter((s) => s.falseAlarm).length,
    failed: scores.filter((s) => s.failed).length,
  };
}
