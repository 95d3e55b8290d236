/**
 * `pitroom history [TEXT]` (search), `pitroom history stats` and `pitroom history import`.
 * The first word picks the subcommand; every other positional is search text.
 */
import { safe, safeLine } from "./safe.ts";
import {
  createEngine,
  type Preparation,
  type SearchFilter,
  type SearchHit,
  type Stats,
  type StatsRow,
} from "../engine/mod.ts";
import { answerSummary, OUTCOME_CLASSES } from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import { UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun, FlagValuesOf } from "./command.ts";
import type { HISTORY_FLAGS } from "./history_command.ts";
import { compact, dateTime, percent, usd } from "./figures.ts";
import { printJson, table } from "./output.ts";
import { periodWords, sinceOf } from "./period.ts";

type HistoryValues = FlagValuesOf<typeof HISTORY_FLAGS>;

const STATS_FLAGS: (keyof HistoryValues)[] = ["since", "json"];
const IMPORT_FLAGS: (keyof HistoryValues)[] = ["json"];

function onlyFlags(flags: HistoryValues, allowed: string[], command: string): void {
  for (const name of Object.keys(flags)) {
    if (!allowed.includes(name)) {
      throw new UsageError(`\`pitroom ${command}\` takes no --${name}`, {
        hint: `see \`pitroom history --help\``,
      });
    }
  }
}

/** Tells people what was done to make the history ready. */
export function notePreparation(sys: Sys, prep: Preparation): void {
  if (prep.movedAside) {
    sys.out.stderr(`history.db was damaged: moved to ${prep.movedAside} and rebuilt\n`);
  }
  if (prep.imported) {
    sys.out.stderr(`Took ${prep.imported.indexed} run(s) from the run folders into the history\n`);
  }
}

/** `--state` as a filter: a final state, `problem`, or an outcome class. */
export function stateFilter(value: string): Pick<SearchFilter, "state" | "outcome"> {
  if (value === "done" || value === "problem" || value === "lost") return { state: value };
  const outcome = OUTCOME_CLASSES.find((c) => c === value);
  if (outcome !== undefined) return { outcome };
  if (value === "queued" || value === "running") {
    throw new UsageError(`The history holds finished runs only, not "${value}" ones`, {
      hint: "see live runs with `pitroom ls --running`",
    });
  }
  throw new UsageError(
    `Unknown --state "${value}": expected done, problem, lost or an outcome (${
      OUTCOME_CLASSES.join(", ")
    })`,
  );
}

/** The search filter of the flags (no effects). */
export function searchFilter(
  flags: Pick<HistoryValues, "model" | "worker" | "group" | "state" | "since">,
  text: string,
  now: number,
): SearchFilter {
  const filter: SearchFilter = {};
  if (text.trim() !== "") filter.text = text;
  for (const name of ["model", "worker", "group"] as const) {
    const value = flags[name];
    if (value !== undefined) filter[name] = value;
  }
  if (flags.state !== undefined) Object.assign(filter, stateFilter(flags.state));
  const since = sinceOf(flags.since ?? "all", now);
  if (since !== null) filter.since = since;
  return filter;
}

const HIGHLIGHT: [string, string] = ["\x1b[1;33m", "\x1b[0m"];

function renderHit(hit: SearchHit, now: number): string {
  const target = hit.model ? `${hit.worker}:${hit.model}` : hit.worker ?? "-";
  const head = [
    hit.id,
    hit.state,
    hit.host === null ? hit.mode : `${hit.mode}@${hit.host}`,
    formatDuration(hit.durationMs ?? 0),
    target,
    dateTime(hit.endedAt ?? hit.createdAt ?? now),
    ...(hit.refs === null || hit.refs === undefined ? [] : [`refs ${hit.refs}`]),
  ].join("  ");
  const lines = [head, `  ${safeLine(hit.task, 100)}`];
  if (hit.snippet !== undefined) lines.push(`  ${hit.snippet.replace(/\s+/g, " ").trim()}`);
  else {
    const result = hit.answer === null ? hit.message : answerSummary(hit.answer);
    if (result) lines.push(`  → ${safeLine(result, 100)}`);
  }
  return lines.join("\n") + "\n";
}

async function search(sys: Sys, flags: HistoryValues, text: string): Promise<number> {
  const now = sys.clock.now();
  const filter = searchFilter(flags, text, now);
  const limit = flags.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new UsageError(`--limit needs a whole number above 0, got "${flags.limit}"`);
  }
  const json = flags.json === true;
  const color = !json && sys.out.isTTY && sys.out.color;
  const hits = await createEngine(sys).history.search(filter, {
    limit,
    marks: color ? HIGHLIGHT : json ? ["**", "**"] : ["", ""],
    onPrepared: (prep) => notePreparation(sys, prep),
  });
  if (json) printJson(sys, hits);
  else if (hits.length === 0) sys.out.stderr("No runs match\n");
  else sys.out.stdout(hits.map((h) => renderHit(h, now)).join("\n"));
  return 0;
}

function statsTable(first: string, rows: StatsRow[]): string {
  return table([
    [
      first,
      "RUNS",
      "OK",
      "PROBLEMS",
      "LIMITED",
      "SUCCESS",
      "AVG TIME",
      "TOKENS IN",
      "OUT",
      "SAVED",
    ],
    ...rows.map((r) => [
      r.label,
      String(r.runs),
      String(r.ok),
      String(r.problems),
      String(r.limited),
      percent(r.successRate),
      formatDuration(r.avgMs),
      compact(r.tokens.input),
      compact(r.tokens.output),
      usd(r.saved),
    ]),
  ]);
}

/** The text of `history stats`. */
export function renderStats(stats: Stats, period: string): string {
  const t = stats.total;
  if (t.runs === 0 && stats.targets.length === 0) return `No finished runs (${period})\n`;
  const lines = [
    `${t.runs} run(s), ${period}: ${t.ok} ok, ${t.problems} problem(s), ${t.limited} rate limited or out of quota (counted apart)`,
    `success ${percent(t.successRate)} · time ${formatDuration(t.totalMs)} (avg ${
      formatDuration(t.avgMs)
    }) · tokens ${compact(t.tokens.input)} in${
      t.tokens.cached ? ` (+${compact(t.tokens.cached)} cached)` : ""
    } / ${compact(t.tokens.output)} out · saved ${usd(t.saved)} (estimate)`,
    "",
    statsTable("WORKER:MODEL", stats.targets).trimEnd(),
  ];
  const limited = stats.targets.filter((r) => r.limitedAttempts > 0);
  if (limited.length > 0) {
    lines.push(
      "",
      "attempts stopped by a rate limit or quota (the run may have moved on): " +
        limited.map((r) => `${r.label} ${r.limitedAttempts}`).join(", "),
    );
  }
  lines.push("", statsTable("DAY", stats.days).trimEnd());
  return lines.join("\n") + "\n";
}

async function stats(sys: Sys, flags: HistoryValues): Promise<number> {
  onlyFlags(flags, STATS_FLAGS, "history stats");
  const now = sys.clock.now();
  const sinceText = flags.since ?? "30d";
  const since = sinceOf(sinceText, now);
  const result = await createEngine(sys).history.stats({ since }, {
    onPrepared: (prep) => notePreparation(sys, prep),
  });
  if (flags.json) printJson(sys, result);
  else sys.out.stdout(renderStats(result, periodWords(sinceText)));
  return 0;
}

async function importCommand(sys: Sys, flags: HistoryValues): Promise<number> {
  onlyFlags(flags, IMPORT_FLAGS, "history import");
  const result = await createEngine(sys).history.import({
    onPrepared: (prep) => {
      if (prep.movedAside) notePreparation(sys, { movedAside: prep.movedAside });
    },
  });
  if (flags.json) printJson(sys, result);
  else {
    sys.out.stdout(
      `Indexed ${result.indexed} finished run(s) in ${formatDuration(result.ms)}${
        result.live ? `; ${result.live} still running (indexed when they finish)` : ""
      }${result.unreadable ? `; ${result.unreadable} folder(s) without a readable record` : ""}\n`,
    );
    // What could not be read is listed; the history keeps what it had of those runs.
    for (const d of result.damaged) {
      sys.out.stdout(
        `  not read: ${d.run} ${d.file} is damaged (${
          safe(d.detail)
        }): the history keeps what it had${
          d.file === "run.json"
            ? " of this run"
            : ` of its ${d.file === "patch.diff" ? "diff" : "steps"}`
        }\n`,
      );
    }
  }
  return 0;
}

/** `pitroom history`. */
export const historyCommand: CommandRun<typeof HISTORY_FLAGS> = async ({ sys, flags, args }) => {
  const [first, ...rest] = args;
  if (first === "stats" || first === "import") {
    if (rest.length > 0) {
      throw new UsageError(`Too many arguments for \`pitroom history ${first}\`: "${rest[0]}"`, {
        hint: "to search for the word, quote it: pitroom history '\"" + first + "\"'",
      });
    }
    return first === "stats" ? await stats(sys, flags) : await importCommand(sys, flags);
  }
  return await search(sys, flags, args.join(" "));
};
