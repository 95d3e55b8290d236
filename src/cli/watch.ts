/**
 * `pitroom watch [RUN... | -g NAME] [--json | --brief] [--interval S] [--timeout DUR]`: follows
 * runs live through the event feed until every one has ended. `--json` prints one line per
 * change (engine/follow/watch_lines.ts, listed by `pitroom help events`), `--brief` one card line when a run starts and one when
 * it ends (for an agent's monitor tool), and a terminal gets a table redrawn as things change: a
 * line per run (state, worker, time, tool calls, what it does now) and, for several, the total
 * (`3/10 done · 2 running · 12k tokens · 1m04s`, progress_line.ts). A run whose worker goes silent
 * past its stall time gets a `stalled` line (and card line), and shows as
 * `stalled (no event for 10m)` in the table until it moves again; a parked run (`--park`) a
 * `parked` line, and `parked until 14:05`. A run that ended and is applied, reverted, discarded,
 * audited or reviewed while others still go gets a `changed` line.
 */
import { safe, safeLine } from "./safe.ts";
import type { RunView, Selector, WatchLine, WatchLineOf } from "../engine/mod.ts";
import { formatUntil, isFinal, LiveFold, liveState, scopeName } from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import { type DamagedRecord, StillRunning, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import type { WATCH_FLAGS } from "./watch_command.ts";
import { engineFor } from "./engine_for.ts";
import { printJsonLine, sayDamaged, table } from "./output.ts";
import { progressLine } from "./progress_line.ts";

/** How a watch prints. */
type Style = "json" | "brief" | "table";

/** The card line of a start or an end; null for lines a brief watch leaves out. */
export function briefLine(line: WatchLine, view?: RunView): string | null {
  switch (line.event) {
    case "started":
      return `▶ ${line.run} started · ${line.mode} · ${view?.worker ?? "-"} · ${safe(line.task)}`;
    case "done":
    case "problem": {
      const kind = line.event === "done" ? "done" : how(line.outcome);
      const text = line.event === "done" ? "done" : `${kind} (exit ${line.exit})`;
      const mark = line.event === "done" ? "✓" : kind === "stopped" ? "■" : "✗";
      const files = line.changes?.length ?? 0;
      const changed = files > 0 ? ` · ${files} file(s) changed` : "";
      const refs = line.refs === undefined ? "" : ` · refs ${line.refs}`;
      return `${mark} ${line.run} ${text} · ${line.time} · ${line.worker}${changed}${refs} · ${
        safeLine(line.summary, 100)
      }`;
    }
    case "parked":
      return `⏸ ${line.run} parked until ${
        formatUntil(line.until, Date.now())
      } · every worker of its chain is out of quota`;
    case "stalled": {
      const last = view?.last === undefined ? "" : ` · last: ${safeLine(view.last, 80)}`;
      return `⏸ ${line.run} ${line.text} · ${view?.worker ?? "-"}${last}`;
    }
    case "changed":
      return `↺ ${line.run} changed by ${line.by}${line.work ? ` · now ${line.work}` : ""}`;
    case "all-done":
      return `all done: ${line.runs} run(s), ${line.ok} ok, ${line.failed} failed`;
    default:
      return null;
  }
}

/** How a problem is named on a card and in the table: timeout, stopped or failed. */
function how(outcome: string | undefined): string {
  return outcome === "timeout" || outcome === "stopped" ? outcome : "failed";
}

function renderTable(view: LiveFold, now: number): string {
  const rows = view.runs().map((v) =>
    [
      v.id,
      v.end ? (v.end.event === "done" ? "done" : how(v.outcome)) : liveState(v, now),
      v.worker,
      formatDuration(v.end ? v.ms ?? 0 : v.startedAt === undefined ? 0 : now - v.startedAt),
      String(v.tools),
      v.end
        ? v.end.summary
        : v.phase === "queued"
        ? `queued #${v.position ?? "?"}`
        : (v.last ?? v.task),
    ].map((cell, i) => (i === 5 ? safeLine(cell, 60) : cell))
  );
  return table([["RUN", "STATE", "WORKER", "TIME", "TOOLS", "NOW / RESULT"], ...rows]);
}

/** Prints lines in one style; throttles progress per run and redraws the table. */
class Printer {
  #sys: Sys;
  #style: Style;
  #view: LiveFold;
  #intervalMs: number;
  #lastProgress = new Map<string, number>();
  #pending = new Map<string, ReturnType<typeof setTimeout>>();
  #drawn = 0;
  #redraw: ReturnType<typeof setTimeout> | undefined;
  #ticker: ReturnType<typeof setInterval> | undefined;
  #since: number;

  constructor(sys: Sys, style: Style, view: LiveFold, intervalMs: number) {
    this.#sys = sys;
    this.#since = sys.clock.now();
    this.#style = style;
    this.#view = view;
    this.#intervalMs = intervalMs;
    if (style === "table") {
      // A terminal's clock column moves on its own; nothing is read on these ticks.
      this.#ticker = setInterval(() => this.#draw(), Math.max(1000, intervalMs));
    }
  }

  print(line: WatchLine): void {
    if (line.event === "progress") return this.#progress(line);
    if (line.event !== "all-done") {
      this.#cancel(
        line.run,
        line.event !== "fallback" && line.event !== "stalled" && line.event !== "parked",
      );
    }
    if (this.#style === "json") this.#sys.out.stdout(JSON.stringify(line) + "\n");
    else if (this.#style === "brief") {
      const text = briefLine(line, "run" in line ? this.#view.get(line.run) : undefined);
      if (text !== null) this.#sys.out.stdout(text + "\n");
    } else this.#scheduleDraw();
  }

  #progress(line: WatchLineOf<"progress">): void {
    if (this.#style === "brief") return;
    if (this.#style === "table") return this.#scheduleDraw();
    const now = this.#sys.clock.now();
    const last = this.#lastProgress.get(line.run) ?? Number.NEGATIVE_INFINITY;
    const wait = last + this.#intervalMs - now;
    if (wait <= 0) {
      this.#lastProgress.set(line.run, now);
      printJsonLine(this.#sys, line);
      return;
    }
    if (this.#pending.has(line.run)) return;
    // The trailing line: the latest progress once the interval has passed.
    this.#pending.set(
      line.run,
      setTimeout(() => {
        this.#pending.delete(line.run);
        const latest = this.#view.progress(line.run);
        if (latest) this.#progress(latest);
      }, wait),
    );
  }

  #cancel(run: string, ended: boolean): void {
    clearTimeout(this.#pending.get(run));
    this.#pending.delete(run);
    if (ended) this.#lastProgress.delete(run);
  }

  #scheduleDraw(): void {
    this.#redraw ??= setTimeout(() => {
      this.#redraw = undefined;
      this.#draw();
    }, Math.min(this.#intervalMs, 250));
  }

  #draw(): void {
    const now = this.#sys.clock.now();
    const runs = this.#view.runs();
    const summary = runs.length > 1 ? `${progressLine(runs, now, this.#since)}\n` : "";
    const text = renderTable(this.#view, now) + summary;
    const up = this.#drawn > 0 ? `\x1b[${this.#drawn}A\x1b[J` : "";
    this.#sys.out.stdout(up + text);
    this.#drawn = text.split("\n").length - 1;
  }

  close(): void {
    for (const timer of this.#pending.values()) clearTimeout(timer);
    this.#pending.clear();
    clearTimeout(this.#redraw);
    clearInterval(this.#ticker);
    if (this.#style === "table") this.#draw();
  }
}

function styleOf(sys: Sys, flags: { json?: boolean; brief?: boolean }): Style {
  if (flags.json && flags.brief) throw new UsageError("Choose one of --json and --brief");
  if (flags.json) return "json";
  if (flags.brief || !sys.out.isTTY) return "brief";
  return "table";
}

/** Follows runs live until every one has ended. */
export const watchCommand: CommandRun<typeof WATCH_FLAGS> = async ({ sys, flags, args }) => {
  const style = styleOf(sys, flags);
  const group = flags.group;
  if (group !== undefined && args.length > 0) {
    throw new UsageError("Name runs or a group (-g), not both");
  }
  const engine = engineFor(sys, flags);
  const damaged: DamagedRecord[] = [];
  let selector: Selector;
  if (group !== undefined) selector = { group };
  else {
    const records = args.length > 0
      ? await engine.list({ runs: args })
      : (await engine.list({ recent: 0 })).filter((r) => !isFinal(r.state));
    if (records.length === 0) {
      throw new UsageError(
        `Nothing to watch: no runs are running in ${scopeName(await engine.scope())}`,
        { hint: "name a run or a group: `pitroom watch -g NAME`" },
      );
    }
    selector = { runs: records.map((r) => r.id) };
  }
  const view = new LiveFold();
  const interval = flags.interval;
  if (!(interval >= 0)) throw new UsageError(`Invalid --interval "${interval}": expected seconds`);
  const printer = new Printer(sys, style, view, interval * 1000);
  const allDone = Promise.withResolvers<void>();
  let replayed = false;
  // Lines leave in order, though a final line waits for its record.
  let queue: Promise<void> = Promise.resolve();
  const emit = (make: () => Promise<WatchLine | null> | WatchLine | null) => {
    queue = queue.then(async () => {
      const line = await make();
      if (line) printer.print(line);
      if (replayed && line?.event !== "all-done") {
        const done = view.allDone();
        if (done) {
          printer.print(done);
          allDone.resolve();
        }
      }
    }).catch((error) => allDone.reject(error));
  };
  const feed = engine.subscribe(selector, ({ run, event, replay }) => {
    if (event.type === "run.changed") {
      // A run that ended changed while others still go (once all ended, the watch is over).
      const line = view.changed(run, event);
      if (line) emit(() => (replayed && view.allDone() === null ? line : null));
      return;
    }
    const final = event.type === "run.finished" || event.type === "run.lost";
    if (replay) {
      if (final) emit(async () => (view.end(await engine.get(run), sys.clock.now()), null));
      else view.apply(run, event);
      return;
    }
    if (final) emit(async () => view.end(await engine.get(run), sys.clock.now()));
    else {
      const line = view.apply(run, event);
      if (line) emit(() => line);
    }
  }, {
    onRun: (record) => view.add(record),
    onDamage: (d) => damaged.push(d),
    onStall: (run, stall) => {
      const line = view.stall(run, stall);
      // Before the snapshot is printed, the snapshot says it.
      if (line) emit(() => (replayed ? line : null));
    },
  });
  const timer = new AbortController();
  const timeoutMs = flags.timeout;
  const scope = await engine.scope();
  try {
    await feed.ready;
    emit(() => {
      replayed = true;
      for (const line of view.snapshot()) printer.print(line);
      if (view.runs().length === 0) {
        throw new UsageError(`No runs in group "${group}" in ${scopeName(scope)}`, {
          hint: "list runs with `pitroom ls` (every repository's: `pitroom ls --all`)",
        });
      }
      return null;
    });
    const waits: Promise<unknown>[] = [allDone.promise];
    if (timeoutMs !== undefined) {
      waits.push(sys.sleep(timeoutMs, timer.signal).then(() => "timeout", () => "cancelled"));
    }
    if ((await Promise.race(waits)) === "timeout") {
      const left = view.runs().filter((v) => !v.end).length;
      throw new StillRunning(`${left} run(s) still going after ${formatDuration(timeoutMs!)}`, {
        hint: `watch again with \`pitroom watch ${group ? `-g ${group}` : args.join(" ")}\``,
      });
    }
  } finally {
    timer.abort();
    await feed.close();
    await queue.catch(() => undefined);
    printer.close();
  }
  // A damaged file met is said once the runs ended. A run whose record is damaged could not be
  // followed to its end: exit 7; one whose events file is was ended by its record.
  return sayDamaged(sys, damaged, {
    failed: damaged.some((d) => d.file === "run.json"),
    otherwise: 0,
  });
};
