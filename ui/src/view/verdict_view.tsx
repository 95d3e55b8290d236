/**
 * Verdicts as badges (`SPEC PASS`, `QUALITY NEEDS-FIXES`, `AUDIT PARTLY`, `STATUS DONE`) with
 * their findings or disputed claims, each with its `path:line`; and the badge of what became of
 * a run's work (cached, applied, not applied, discarded, reverted).
 */
import type { ApiDisposition, ApiPoint, ApiVerdict } from "../api/types.ts";

const DISPOSITION: Record<ApiDisposition, { label: string; title: string }> = {
  cached: { label: "cached", title: "Answered from the answer cache: no worker ran" },
  applied: { label: "applied", title: "Its patch was applied to your tree" },
  "not-applied": { label: "not applied", title: "Its patch waits: pitroom apply, or discard" },
  discarded: { label: "discarded", title: "Its copy was discarded without applying the patch" },
  reverted: { label: "reverted", title: "Its changes were taken back out of your tree" },
};

/** The badge of what became of a run's work. */
export function DispositionBadge({ disposition }: { disposition: ApiDisposition }) {
  const d = DISPOSITION[disposition];
  return (
    <span class={`badge d-${disposition}`} data-disposition={disposition} title={d.title}>
      {d.label}
    </span>
  );
}

/** A verdict's badges. */
export function Badges({ verdict }: { verdict: ApiVerdict }) {
  return (
    <>
      {verdict.badges.map((b) => (
        <span
          key={b.name}
          class={`badge tone-${b.tone}`}
          data-badge={b.name}
          data-value={b.value}
        >
          <span class="badge-name">{b.name}</span> <span class="badge-value">{b.value}</span>
        </span>
      ))}
    </>
  );
}

/** One finding or claim: its severity, its place, its text. */
function Point({ point }: { point: ApiPoint }) {
  return (
    <li class="point" data-severity={point.severity ?? ""}>
      {point.severity && (
        <span class={`sev sev-${point.severity.toLowerCase().replace(/\s+/g, "-")}`}>
          {point.severity}
        </span>
      )}
      {point.ref && <code class="ref">{point.ref}</code>}
      <span class="point-text">{point.text}</span>
    </li>
  );
}

/** The findings or claims of a verdict; `max`: at most that many, then how many more. */
export function Points({ points, max }: { points: ApiPoint[]; max?: number }) {
  if (points.length === 0) return null;
  const shown = max === undefined ? points : points.slice(0, max);
  const more = points.length - shown.length;
  return (
    <ul class="points">
      {shown.map((p, i) => <Point key={i} point={p} />)}
      {more > 0 && <li class="muted more">and {more} more</li>}
    </ul>
  );
}

/** True when the verdict was given (not running, failed or missing). */
function conclusive(verdict: ApiVerdict): boolean {
  return verdict.note === null && verdict.badges.length > 0 &&
    !verdict.badges.some((b) => ["running", "failed", "no verdict"].includes(b.value));
}

const HEADS = { review: "Review", audit: "Audit", status: "Implementer" } as const;

/** A verdict in full (the panel): what it is, who gave it, its badges, its points, its note. */
export function VerdictBlock(
  { verdict, self }: { verdict: ApiVerdict; self: string },
) {
  const by = verdict.run !== null && verdict.run !== self ? verdict.run : null;
  const what = verdict.kind === "review"
    ? "findings"
    : verdict.kind === "audit"
    ? "disputed claims"
    : "open issues";
  return (
    <div class="verdict" data-verdict={verdict.kind}>
      <div class="verdict-head">
        <span class="verdict-kind">{HEADS[verdict.kind]}</span>
        <Badges verdict={verdict} />
        {by && <a class="link" href={`#${by}`}>by run {by}</a>}
      </div>
      {verdict.note && <p class="bad verdict-note">{verdict.note}</p>}
      {verdict.points.length > 0
        ? <Points points={verdict.points} />
        : conclusive(verdict) && <p class="muted">No {what}.</p>}
    </div>
  );
}
