/** Stats: runs, success rate, time, tokens and savings per worker and model and per day. */
import { useEffect, useState } from "preact/hooks";
import { fetchStats } from "../api/client.ts";
import type { Stats, StatsRow } from "../api/types.ts";
import { duration, percent, tokens, usd } from "../model/format.ts";
import { BarChart, BarList } from "./chart_view.tsx";

const PERIODS = [["7d", "7 days"], ["30d", "30 days"], ["all", "All time"]] as const;

function allTokens(r: StatsRow): number {
  return r.tokens.input + r.tokens.output + r.tokens.reasoning;
}

/** The Stats tab. */
export function StatsView() {
  const [period, setPeriod] = useState<string>("30d");
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    fetchStats(period).then((s) => !gone && setStats(s))
      .catch((e: unknown) => !gone && setError(String(e)));
    return () => void (gone = true);
  }, [period]);
  return (
    <section class="stats">
      <div class="filters" role="toolbar">
        {PERIODS.map(([v, name]) => (
          <button
            type="button"
            key={v}
            class={period === v ? "on" : ""}
            aria-pressed={period === v}
            onClick={() => setPeriod(v)}
          >
            {name}
          </button>
        ))}
      </div>
      {error && <p class="bad">{error}</p>}
      {stats === null ? <p class="muted">Loading…</p> : <StatsBody stats={stats} />}
    </section>
  );
}

function StatsBody({ stats }: { stats: Stats }) {
  const t = stats.total;
  const days = stats.days.map((d) => ({ ...d, label: d.label.slice(5) }));
  return (
    <>
      <div class="tiles">
        <div class="tile">
          <span class="tile-value">{t.runs}</span>
          <span class="tile-name">Runs</span>
        </div>
        <div class="tile">
          <span class="tile-value">{percent(t.successRate)}</span>
          <span class="tile-name">Success rate</span>
        </div>
        <div class="tile">
          <span class="tile-value">{duration(t.totalMs)}</span>
          <span class="tile-name">Worker time</span>
        </div>
        <div class="tile">
          <span class="tile-value">{tokens(allTokens(t))}</span>
          <span class="tile-name">Tokens</span>
        </div>
        <div class="tile">
          <span class="tile-value">{usd(t.saved)}</span>
          <span class="tile-name">Saved</span>
        </div>
      </div>
      <div class="charts">
        <BarChart
          title="Runs per day"
          values={days.map((d) => ({ label: d.label, value: d.runs }))}
          format={String}
        />
        <BarChart
          title="Saved per day"
          values={days.map((d) => ({ label: d.label, value: d.saved }))}
          format={usd}
        />
        <BarList
          title="Success rate per worker and model"
          values={stats.targets.map((r) => ({ label: r.label, value: (r.successRate ?? 0) * 100 }))}
          format={(n) => `${Math.round(n)}%`}
        />
        <BarChart
          title="Tokens per day"
          values={days.map((d) => ({ label: d.label, value: allTokens(d) }))}
          format={tokens}
        />
        <BarList
          title="Worker time per worker and model"
          values={stats.targets.map((r) => ({ label: r.label, value: r.totalMs }))}
          format={duration}
        />
        <BarList
          title="Tokens per worker and model"
          values={stats.targets.map((r) => ({ label: r.label, value: allTokens(r) }))}
          format={tokens}
        />
      </div>
      <table class="table">
        <thead>
          <tr>
            <th>Worker and model</th>
            <th>Runs</th>
            <th>Success</th>
            <th>Limited</th>
            <th>Time</th>
            <th>Avg</th>
            <th>Tokens</th>
            <th>Cost</th>
            <th>Saved</th>
          </tr>
        </thead>
        <tbody>
          {stats.targets.map((r) => (
            <tr key={r.label}>
              <td>
                <code>{r.label}</code>
              </td>
              <td>{r.runs}</td>
              <td>{percent(r.successRate)}</td>
              <td>{r.limited}</td>
              <td>{duration(r.totalMs)}</td>
              <td>{duration(r.avgMs)}</td>
              <td>{tokens(allTokens(r))}</td>
              <td>{usd(r.workerCost)}</td>
              <td>{usd(r.saved)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
