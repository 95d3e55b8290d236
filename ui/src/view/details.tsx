/**
 * A run's details: worker, the model that really ran, when (local, human times), its counts
 * (the card's, which the stream keeps current: the panel and the card never disagree), cost and
 * savings, what became of its work (cached, applied, discarded, reverted), what it is about (a
 * plan task, a reviewed or audited run), the checks (references, evidence, verify), the audit's
 * correction round, fallbacks and skipped workers.
 */
import type { ComponentChildren } from "preact";
import type { RunCard, RunReport } from "../api/types.ts";
import { cardTokens } from "../model/card.ts";
import { duration, plural, stamp, tokens, usd, when } from "../model/format.ts";
import { Markdown } from "./markdown_view.tsx";

function label(t: { worker: string; model?: string | undefined }): string {
  return t.model ? `${t.worker}:${t.model}` : t.worker;
}

/** A moment as a person reads it, its exact local date and time on hover. */
function At({ ms, now }: { ms: number; now: number }) {
  return <time title={stamp(ms)}>{when(ms, now)}</time>;
}

/** A link to another run's card. */
function RunLink({ id }: { id: string }) {
  return <a class="link" href={`#${id}`}>{id}</a>;
}

interface Row {
  name: string;
  value: ComponentChildren;
}

function row(name: string, value: ComponentChildren): Row {
  return { name, value };
}

function savedRow(receipt: NonNullable<RunReport["receipt"]>): ComponentChildren {
  const r = receipt;
  if (r.saved >= 0) return `${usd(r.saved)} against ${r.primary} (${usd(r.primaryCost)})`;
  return (
    <span class="warn" data-saved>
      {usd(r.saved)}: the worker cost {usd(r.workerCost)}, {r.primary} would have cost{" "}
      {usd(r.primaryCost)}
    </span>
  );
}

/** What became of the run's work, as a row (or none). */
function workRow(report: RunReport, card: RunCard, now: number): Row | null {
  if (report.cached) {
    return row(
      "Cached",
      <span data-disposition-detail="cached">
        Answered from the cache: the answer of run <RunLink id={report.cached.from} />, which ended
        {" "}
        <At ms={report.cached.at} now={now} />
      </span>,
    );
  }
  if (report.changes?.reverted) {
    const left = report.changes.left ?? [];
    return row(
      "Reverted",
      <span data-disposition-detail="reverted">
        The worker's changes were taken back out of your tree
        {left.length > 0 &&
          `; left as they were: ${left.map((f) => `${f.path} (${f.why})`).join(", ")}`}
      </span>,
    );
  }
  const iso = report.isolation;
  if (iso?.applied) {
    return row(
      "Applied",
      <span data-disposition-detail="applied">
        <At ms={iso.applied.at} now={now} />{" "}
        to your tree ({plural(iso.applied.files.length, "file")})
      </span>,
    );
  }
  if (iso?.discarded) {
    return row(
      "Discarded",
      <span data-disposition-detail="discarded">
        The copy was discarded <At ms={iso.discarded.at} now={now} />, its patch not applied
      </span>,
    );
  }
  if (card.disposition === "not-applied") {
    return row(
      "Not applied",
      <span data-disposition-detail="not-applied">
        The patch waits in the run's copy: <code>pitroom apply {report.id}</code>, or Discard
      </span>,
    );
  }
  return null;
}

/** What the run is about: a plan task, a reviewed or audited run, a follow-up. */
function aboutRows(report: RunReport): Row[] {
  const rows: Row[] = [];
  if (report.plan) {
    const p = report.plan;
    rows.push(row(
      "Plan task",
      `${p.path} · task ${p.step}: ${p.title}${p.tier ? ` (tier ${p.tier})` : ""}`,
    ));
  }
  const review = report.review;
  if (review) {
    const what: ComponentChildren = review.range
      ? `${review.range.typed} (${plural(review.range.commits, "commit")})`
      : review.of
      ? <RunLink id={review.of} />
      : "-";
    rows.push(row("Reviewed", what));
    if (review.implementer) rows.push(row("Implemented by", review.implementer));
    const r = review.redacted;
    if (r.files.length > 0 || r.secrets > 0) {
      rows.push(row(
        "Kept out of the package",
        `${plural(r.files.length, "file")} (${r.files.join(", ") || "-"}) and ${
          plural(r.secrets, "secret")
        }`,
      ));
    }
  }
  if (report.auditOf) {
    rows.push(row(
      report.auditOf.kind === "fix" ? "Corrects the answer of" : "Audits the answer of",
      <RunLink id={report.auditOf.run} />,
    ));
  }
  if (report.continues) rows.push(row("Follows up on", <RunLink id={report.continues.run} />));
  if (report.host) rows.push(row("Host", <span data-host>{report.host}</span>));
  return rows;
}

/** The checks of an answer and the audit on it. */
function checkRows(report: RunReport, now: number): Row[] {
  const rows: Row[] = [];
  if (report.refs?.total === 0) {
    rows.push(row("References checked", "the answer cites no path:line"));
  } else if (report.refs) {
    const r = report.refs;
    rows.push(row(
      "References checked",
      <span>
        {r.verified} of {r.total} held
        {r.failed.length > 0 && (
          <ul class="plain">
            {r.failed.map((f, i) => (
              <li key={i}>
                <code>{f.ref}</code> {f.reason}
              </li>
            ))}
          </ul>
        )}
      </span>,
    ));
  }
  if (report.evidence?.length) {
    rows.push(row("Evidence", report.evidence.map((e) => e.message).join(" · ")));
  }
  const audit = report.audit;
  if (audit) {
    const by = audit.worker ? label({ worker: audit.worker, model: audit.model }) : "-";
    rows.push(row(
      "Audit",
      <span data-audit-detail>
        {audit.state === "running" ? "running" : audit.verdict ?? audit.state} · by {by}
        {audit.sampled ? " (sampled)" : ""} · started <At ms={audit.startedAt} now={now} />
        {audit.endedAt !== undefined && (
          <>
            {" "}· took {duration(audit.endedAt - audit.startedAt)}
          </>
        )}
        {audit.cost !== undefined && ` · ${usd(audit.cost)}`}
        {audit.run && (
          <>
            {" "}· <RunLink id={audit.run} />
          </>
        )}
      </span>,
    ));
    const fix = audit.fix;
    if (fix) {
      rows.push(row(
        "Correction round",
        <div data-fix-detail>
          <span>
            {fix.state}
            {fix.run && (
              <>
                {" "}· <RunLink id={fix.run} />
              </>
            )}
            {fix.message && ` · ${fix.message}`}
          </span>
          {fix.answer && <Markdown text={fix.answer} class="answer" />}
        </div>,
      ));
    }
  }
  if (report.verify) {
    const v = report.verify;
    rows.push(row(
      "Verify",
      `${v.command}: ${v.ok ? "passed" : v.timedOut ? "timed out" : `failed (exit ${v.code})`} in ${
        duration(v.ms)
      }`,
    ));
  } else if (report.verifyCommand) rows.push(row("Verify", report.verifyCommand));
  return rows;
}

/** The details list of a run; `card` gives the counts the card shows. */
export function Details(
  { report, card, now }: { report: RunReport; card: RunCard; now: number },
) {
  const last = report.attempts.at(-1);
  const t = card.tokens;
  const rows: Row[] = [
    row("Worker", last ? last.worker : report.chain[0]?.worker ?? "-"),
    row("Model that ran", last?.model ?? "(the worker's default)"),
    row("Mode", report.mode + (report.effort ? ` · effort ${report.effort}` : "")),
    row("Created", <At ms={report.createdAt} now={now} />),
  ];
  if (report.startedAt) rows.push(row("Started", <At ms={report.startedAt} now={now} />));
  if (report.endedAt) rows.push(row("Ended", <At ms={report.endedAt} now={now} />));
  if (report.startedAt && report.endedAt) {
    rows.push(row("Time", duration(report.endedAt - report.startedAt)));
  }
  rows.push(row(
    "Work",
    `${plural(card.steps, "step")} · ${plural(card.tools, "tool call")}` +
      (card.denied > 0 ? ` (${card.denied} denied)` : ""),
  ));
  rows.push(row(
    "Tokens",
    <span data-detail="tokens">
      {tokens(cardTokens(card))}: {tokens(t.input)} in · {tokens(t.output)} out · {tokens(t.cached)}
      {" "}
      cached{t.reasoning ? ` · ${tokens(t.reasoning)} reasoning` : ""}
    </span>,
  ));
  const r = report.receipt;
  if (card.cost !== null) {
    rows.push(row("Cost", `${usd(card.cost)}${r ? ` (${r.workerCostSource})` : ""}`));
  }
  if (r) {
    rows.push(row("Saved", savedRow(r)));
    rows.push(row("Returned", `${tokens(r.returnedTokens)} tokens to the agent`));
  }
  const work = workRow(report, card, now);
  if (work) rows.push(work);
  rows.push(...aboutRows(report));
  rows.push(...checkRows(report, now));
  if (report.attempts.length > 1) {
    rows.push(row(
      "Fallbacks",
      report.attempts.slice(0, -1).map((a, i) =>
        `${label(a)} → ${label(report.attempts[i + 1]!)} (${a.outcome ?? "failed"}${
          a.message ? `: ${a.message}` : ""
        })`
      ).join("; "),
    ));
  }
  if (report.skipped?.length) {
    rows.push(row(
      "Skipped",
      report.skipped.map((s) => `${label(s)} cooling down until ${when(s.until, now)}`).join("; "),
    ));
  }
  if (report.notes?.length) rows.push(row("Notes", report.notes.join(" · ")));
  return (
    <dl class="details">
      {rows.map(({ name: k, value: v }) => (
        <div key={k} data-row={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
