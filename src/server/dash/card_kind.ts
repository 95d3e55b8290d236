/**
 * What a card says a run is, in the user's terms, from its record alone (pure): its kind and
 * title (a review says "Review of RUN", an audit "Audit of RUN", a plan task its plan and task,
 * never Pitroom's own prompt), the verdicts to show as badges with their findings or disputed
 * claims, and what became of its work (cached, applied, not applied, discarded, reverted).
 */
import type { RunReport } from "../../engine/mod.ts";
import { workOf } from "../../engine/present.ts";
import type {
  ApiBadge,
  ApiDisposition,
  ApiKind,
  ApiPoint,
  ApiTone,
  ApiVerdict,
} from "./api_types.ts";

/** A plain run's title is its task, cut here (the panel has the whole task). */
const TITLE_MAX = 300;

/** The file name of a path. */
function baseName(path: string): string {
  return path.split(/[\\/]/).filter((p) => p !== "").at(-1) ?? path;
}

/** A run's kind, its title and the run it is about. */
export function kindOf(record: RunReport): { kind: ApiKind; title: string; about: string | null } {
  const review = record.review;
  if (review !== undefined) {
    if (review.kind === "range") {
      const range = review.range?.typed ?? "a commit range";
      const plan = review.plan === undefined ? "" : ` · plan ${baseName(review.plan)}`;
      return { kind: "review", title: `Review of ${range}${plan}`, about: null };
    }
    const of = review.of ?? null;
    const what = review.kind === "fix" ? "fix round " : "";
    return { kind: "review", title: `Review of ${what}${of ?? "a run"}`, about: of };
  }
  const audit = record.auditOf;
  if (audit !== undefined) {
    return audit.kind === "fix"
      ? { kind: "correction", title: `Correction of ${audit.run}`, about: audit.run }
      : { kind: "audit", title: `Audit of ${audit.run}`, about: audit.run };
  }
  const plan = record.plan;
  if (plan !== undefined) {
    const again = record.continues === undefined ? "" : " (follow-up)";
    return {
      kind: "plan",
      title: cut(
        `Plan ${baseName(plan.path)} · task ${plan.step}: ${plan.title}${again}`,
        TITLE_MAX,
      ),
      about: record.continues?.run ?? null,
    };
  }
  // (A task may be a megabyte: only its start can be the title.)
  const task = record.task.trimStart().slice(0, 4 * TITLE_MAX).trimEnd().replace(/\s+/g, " ");
  return {
    kind: "run",
    title: cut(task, TITLE_MAX),
    about: record.continues?.run ?? null,
  };
}

/** A place: `path:line`, `path:line-line` or `path#Lx` (the path has no space, colon or `#`). */
const PLACE = /^`?([^\s`:#]+(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?))`?/;
/** What may stand between a leading place and its text. */
const AFTER_PLACE = /^\s*(?:[—–:]|-{1,2})?\s*/;
/** A place anywhere: a path with a dot in its name, then `:line` or `#Lx`. */
const ANY_PLACE = /[^\s`:#()[\]<>"',;]+\.\w+(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)/;
/**
 * A claim's text is cut here, and only its first `PLACE_MAX` characters are searched for a place
 * (a hostile reply may hold a megabyte on one line: every search here is on a bounded text).
 */
const POINT_MAX = 1_000;
const PLACE_MAX = 300;
/** A verdict lists at most this many points (the answer has them all). */
const POINTS_MAX = 100;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A claim with its place: the `path:line` it names first, and the rest of its text. */
export function pointOf(claim: string, severity: string | null = null): ApiPoint {
  const text = cut(claim.trim(), POINT_MAX);
  // A place names a file: `12:30` is a time.
  const found = PLACE.exec(text);
  const lead = found !== null && /[A-Za-z]/.test(found[1]!) ? found : null;
  if (lead !== null) {
    const rest = text.slice(lead[0].length);
    const gap = AFTER_PLACE.exec(rest)![0];
    if (rest.length > gap.length) return { severity, ref: lead[1]!, text: rest.slice(gap.length) };
  }
  const any = ANY_PLACE.exec(text.slice(0, PLACE_MAX));
  return { severity, ref: lead?.[1] ?? any?.[0] ?? null, text };
}

const SPEC_TONE: Record<string, ApiTone> = { PASS: "good", FAIL: "bad" };
const QUALITY_TONE: Record<string, ApiTone> = { APPROVED: "good", "NEEDS-FIXES": "warn" };
const AUDIT_TONE: Record<string, ApiTone> = { AGREE: "good", PARTLY: "warn", DISAGREE: "bad" };
const STATUS_TONE: Record<string, ApiTone> = {
  DONE: "good",
  DONE_WITH_CONCERNS: "warn",
  BLOCKED: "bad",
  NEEDS_CONTEXT: "bad",
};

type ReviewVerdict = NonNullable<NonNullable<RunReport["review"]>["verdict"]>;

function reviewBadges(v: ReviewVerdict): ApiBadge[] {
  const badges: ApiBadge[] = [];
  if (v.spec !== undefined) badges.push({ name: "SPEC", value: v.spec, tone: SPEC_TONE[v.spec]! });
  if (v.quality !== undefined) {
    badges.push({ name: "QUALITY", value: v.quality, tone: QUALITY_TONE[v.quality]! });
  }
  return badges;
}

function reviewPoints(v: ReviewVerdict): ApiPoint[] {
  const findings = v.findings.slice(0, POINTS_MAX).map((f): ApiPoint => {
    const read = pointOf(f.text, f.severity);
    if (f.file === undefined) return read;
    const ref = cut(f.line === undefined ? f.file : `${f.file}:${f.line}`, PLACE_MAX);
    // The finding's text usually starts with its place too: said once.
    const text = read.ref !== null && read.ref.startsWith(f.file)
      ? read.text
      : cut(f.text.trim(), POINT_MAX);
    return { severity: f.severity, ref, text };
  });
  const unsure = v.cannotVerify.slice(0, POINTS_MAX - findings.length)
    .map((c) => pointOf(c, "Cannot verify"));
  return [...findings, ...unsure];
}

function auditVerdict(
  run: string | null,
  verdict: string | undefined,
  disputed: readonly string[],
): ApiVerdict {
  return {
    kind: "audit",
    run,
    badges: verdict === undefined
      ? []
      : [{ name: "AUDIT", value: verdict, tone: AUDIT_TONE[verdict] ?? "info" }],
    points: disputed.slice(0, POINTS_MAX).map((d) => pointOf(d)),
    note: null,
  };
}

/** The verdicts a card shows: its own (a review's, an audit's, a plan task's status), then others' on it. */
export function verdictsOf(record: RunReport): ApiVerdict[] {
  const out: ApiVerdict[] = [];
  const ended = record.endedAt !== undefined;
  const review = record.review;
  if (review !== undefined && ended) {
    const v = review.verdict;
    out.push({
      kind: "review",
      run: record.id,
      badges: v === undefined ? [] : reviewBadges(v),
      points: v === undefined ? [] : reviewPoints(v),
      note: v?.complete === false || v === undefined ? record.message ?? null : null,
    });
  }
  const of = record.auditOf;
  if (of?.kind === "audit" && ended) {
    const own = auditVerdict(record.id, of.verdict, of.disputed ?? []);
    if (of.verdict === undefined) {
      own.badges = [{ name: "AUDIT", value: "no verdict", tone: "bad" }];
      own.note = record.outcome === "ok"
        ? "The reply has no clean AUDIT line: the audit failed"
        : record.message ?? `The audit ended ${record.outcome ?? record.state}`;
    }
    out.push(own);
  }
  const status = record.implementer;
  if (status !== undefined) {
    out.push({
      kind: "status",
      run: record.id,
      badges: [{
        name: "STATUS",
        value: status.status,
        tone: STATUS_TONE[status.status] ?? "info",
      }],
      points: status.openIssues.slice(0, POINTS_MAX).map((i) => pointOf(i)),
      note: null,
    });
  }
  const last = record.reviews?.at(-1);
  if (last !== undefined) {
    out.push({
      kind: "review",
      run: last.run,
      badges: reviewBadges(last),
      points: reviewPoints(last),
      note: null,
    });
  }
  const audit = record.audit;
  if (audit !== undefined) {
    const theirs = auditVerdict(audit.run ?? null, audit.verdict, audit.disputed);
    if (audit.state === "running") {
      theirs.badges = [{ name: "AUDIT", value: "running", tone: "info" }];
    } else if (audit.state === "failed") {
      theirs.badges = [{ name: "AUDIT", value: "failed", tone: "bad" }];
      theirs.note = audit.message ?? null;
    }
    out.push(theirs);
  }
  return out;
}

/** What became of a finished run's work, or null (live, or nothing to say). */
export function dispositionOf(record: RunReport): ApiDisposition | null {
  return workOf(record);
}
