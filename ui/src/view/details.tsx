/**
 * A run's details: worker, the model that really ran, tokens, cost, savings, fallbacks, skipped
 * workers with their cooldowns, and what other checks said (references, verify, audit) when the
 * report has them.
 */
import type { RunReport } from "../api/types.ts";
import { clock, duration, stamp, tokens, usd } from "../model/format.ts";

function label(t: { worker: string; model?: string | undefined }): string {
  return t.model ? `${t.worker}:${t.model}` : t.worker;
}

/** A field other parts of Pitroom may add to a report; shown when present. */
function extra(report: RunReport, key: string): unknown {
  return (report as unknown as Record<string, unknown>)[key];
}

function summary(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.map(summary).join(", ");
  const o = value as Record<string, unknown>;
  const head = o.verdict ?? o.status ?? o.state ?? o.outcome ??
    (o.ok === undefined ? undefined : o.ok ? "passed" : "failed");
  const rest = Object.entries(o)
    .filter(([k, v]) =>
      !["verdict", "status", "state", "outcome", "ok"].includes(k) &&
      (typeof v !== "object" || v === null)
    )
    .map(([k, v]) => `${k} ${v}`);
  return [head, ...rest].filter((x) => x !== undefined && x !== "").join(" · ");
}

/** The details list. */
export function Details({ report }: { report: RunReport }) {
  const last = report.attempts.at(-1);
  const t = report.progress.tokens;
  const rows: Array<[string, string]> = [
    ["Worker", last ? last.worker : report.chain[0]?.worker ?? "-"],
    ["Model that ran", last?.model ?? "(the worker's default)"],
    ["Mode", report.mode + (report.effort ? ` · effort ${report.effort}` : "")],
    ["Started", report.startedAt ? stamp(report.startedAt) : "-"],
  ];
  if (report.startedAt && report.endedAt) {
    rows.push(["Time", duration(report.endedAt - report.startedAt)]);
  }
  rows.push([
    "Tokens",
    `${tokens(t.input)} in · ${tokens(t.output)} out · ${tokens(t.cached)} cached` +
    (t.reasoning ? ` · ${tokens(t.reasoning)} reasoning` : ""),
  ]);
  if (report.progress.cost !== undefined) rows.push(["Cost", usd(report.progress.cost)]);
  if (report.receipt) {
    const r = report.receipt;
    if (report.progress.cost === undefined) {
      rows.push(["Cost", `${usd(r.workerCost)} (${r.workerCostSource})`]);
    }
    rows.push(["Saved", `${usd(r.saved)} against ${r.primary} (${usd(r.primaryCost)})`]);
    rows.push(["Returned", `${tokens(r.returnedTokens)} tokens to the agent`]);
  }
  if (report.attempts.length > 1) {
    rows.push([
      "Fallbacks",
      report.attempts.slice(0, -1).map((a, i) =>
        `${label(a)} → ${label(report.attempts[i + 1]!)} (${a.outcome ?? "failed"}${
          a.message ? `: ${a.message}` : ""
        })`
      ).join("; "),
    ]);
  }
  if (report.skipped?.length) {
    rows.push([
      "Skipped",
      report.skipped.map((s) => `${label(s)} cooling down until ${clock(s.until)}`).join("; "),
    ]);
  }
  for (const [key, name] of [["references", "References checked"], ["audit", "Audit"]] as const) {
    const v = extra(report, key);
    if (v !== undefined) rows.push([name, summary(v)]);
  }
  if (report.verify) {
    const v = report.verify;
    rows.push([
      "Verify",
      `${v.command}: ${v.ok ? "passed" : v.timedOut ? "timed out" : `failed (exit ${v.code})`} in ${
        duration(v.ms)
      }`,
    ]);
  } else if (report.verifyCommand) rows.push(["Verify", report.verifyCommand]);
  if (report.notes?.length) rows.push(["Notes", report.notes.join(" · ")]);
  return (
    <dl class="details">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
