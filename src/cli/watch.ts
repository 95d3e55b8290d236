/**
 * `pitroom watch [RUN... | -g NAME] [--json | --brief] [--interval S] [--timeout DUR]`: follows
 * runs live through the event feed until every one has ended. `--json` prints one line per
 * change (the `watch_lines.ts` contract), `--brief` one card line when a run starts and one when
 * it ends (for an agent's monitor tool), and a terminal gets a table redrawn as things change.
 */
import { subscribe } from "../engine/feed.ts";
import { statePaths } from "../store/paths.ts";
import { loadRecord } from "../store/runs.ts";
import { isFinal } from "../store/record.ts";
import { StillRunning, UsageError } from "../sys/errors.ts";
import type { Sys, Timer } from "../sys/mod.ts";
import type { CommandRun } from "./command.ts";
import { formatDuration } from "./duration.ts";
import { printJsonLine, table } from "./output.ts";
import { oneLine } from "../sys/text.ts";
import { loadCurrent, loadNamed } from "./runs.ts";
import { CrewView, type WatchLine } from "./watch_lines.ts";

/** How a watch prints. */
type Style = "json" | "brief" | "table";

const END_MARK: Record<string, string> = { done: "✓", failed: "✗", timeout: "✗", stopped: "■" };

/** The card line of a start or an end; null for lines a brief watch leaves out. */
export function briefLine(line: WatchLine): string | null {
  switch (line.type) {
    case "started":
      return `▶ ${line.run} started · ${line.mode} · ${line.worker} · ${line.task}`;
    case "done":
    case "failed":
    case "timeout":
    case "stopped": {
      const how = line.type === "done" ? "done" : `${line.type} (exit ${line.exit})`;
      const changed = line.changes.length > 0 ? ` · ${line.changes.length} file(s) changed` : "";
      return `${
        END_MARK[line.type]
      } ${line.run} ${how} · ${line.time} · ${line.worker}${changed} · ${
        oneLine(line.summary, 100)
      }`;
    }
    case "all-done":
      return `all done: ${line.runs} run(s), ${line.ok} ok, ${line.failed} failed`;
    default:
      return null;
  }
}

function renderTable(view: CrewView, now: number): string {
  const rows = view.runs().map((v) =>
    [
      v.id,
      v.end ? v.end.type : v.phase,
      v.worker,
      formatDuration(v.end ? v.end.ms : v.startedAt === undefined ? 0 : now - v.startedAt),
      String(v.tools),
      v.end
        ? v.end.summary
        : v.phase === "queued"
        ? `queued #${v.position ?? "?"}`
        : (v.last ?? v.task),
    ].map((cell, i) => (i === 5 ? oneLine(cell, 60) : cell))
  );
  return table([["RUN", "STATE", "WORKER", "TIME", "TOOLS", "NOW / RESULT"], ...rows]);
}

/** Prints lines in one style; throttles progress per run and redraws the table. */
class Printer {
  #sys: Sys;
  #style: Style;
  #view: CrewView;
  #intervalMs: number;
  #lastProgress = new Map<string, number>();
  #pending = new Map<string, Timer>();
  #drawn = 0;
  #redraw: Timer | undefined;
  #ticker: Timer | undefined;

  constructor(sys: Sys, style: Style, view: CrewView, intervalMs: number) {
    this.#sys = sys;
    this.#style = style;
    this.#view = view;
    this.#intervalMs = intervalMs;
    if (style === "table") {
      // A terminal's clock column moves on its own; nothing is read on these ticks.
      this.#ticker = sys.clock.every(Math.max(1000, intervalMs), () => this.#draw());
    }
  }

  print(line: WatchLine): void {
    if (line.type === "progress") return this.#progress(line);
    if (line.type !== "all-done") this.#cancel(line.run, line.type !== "fallback");
    if (this.#style === "json") this.#sys.out.stdout(JSON.stringify(line) + "\n");
    else if (this.#style === "brief") {
      const text = briefLine(line);
      if (text !== null) this.#sys.out.stdout(text + "\n");
    } else this.#scheduleDraw();
  }

  #progress(line: Extract<WatchLine, { type: "progress" }>): void {
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
      this.#sys.clock.after(wait, () => {
        this.#pending.delete(line.run);
        const latest = this.#view.progress(line.run);
        if (latest) this.#progress(latest as Extract<WatchLine, { type: "progress" }>);
      }),
    );
  }

  #cancel(run: string, ended: boolean): void {
    this.#pending.get(run)?.cancel();
    this.#pending.delete(run);
    if (ended) this.#lastProgress.delete(run);
  }

  #scheduleDraw(): void {
    this.#redraw ??= this.#sys.clock.after(Math.min(this.#intervalMs, 250), () => {
      this.#redraw = undefined;
      this.#draw();
    });
  }

  #draw(): void {
    const text = renderTable(this.#view, this.#sys.clock.now());
    const up = this.#drawn > 0 ? `\x1b[${this.#drawn}A\x1b[J` : "";
    this.#sys.out.stdout(up + text);
    this.#drawn = text.split("\n").length - 1;
  }

  close(): void {
    for (const timer of this.#pending.values()) timer.cancel();
    this.#pending.clear();
    this.#redraw?.cancel();
    this.#ticker?.cancel();
    if (this.#style === "table") this.#draw();
  }
}

function styleOf(sys: Sys, flags: Record<string, unknown>): Style {
  if (flags.json && flags.brief) throw new UsageError("Choose one of --json and --brief");
  if (flags.json) return "json";
  if (flags.brief || !sys.out.isTTY) return "brief";
  return "table";
}

/** Follows runs live until every one has ended. */
export const watchCommand: CommandRun = async ({ sys, flags, args }) => {
  const style = styleOf(sys, flags);
  const group = flags.group as string | undefined;
  if (group !== undefined && args.length > 0) {
    throw new UsageError("Name runs or a group (-g), not both");
  }
  let filter: { runs: string[] } | { group: string };
  if (group !== undefined) filter = { group };
  else {
    const records = args.length > 0
      ? await loadNamed(sys, args)
      : (await loadCurrent(sys, 0)).filter((r) => !isFinal(r.state));
    if (records.length === 0) {
      throw new UsageError("Nothing to watch: no runs are running", {
        hint: "name a run or a group: `pitroom watch -g NAME`",
      });
    }
    filter = { runs: records.map((r) => r.id) };
  }
  const paths = statePaths(sys.stateDir);
  const view = new CrewView();
  const interval = (flags.interval as number | undefined) ?? 1;
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
      if (replayed && line?.type !== "all-done") {
        const done = view.allDone();
        if (done) {
          printer.print(done);
          allDone.resolve();
        }
      }
    }).catch((error) => allDone.reject(error));
  };
  const feed = subscribe(sys, filter, ({ run, event, replay }) => {
    const final = event.type === "run.finished" || event.type === "run.lost";
    if (replay) {
      if (final) emit(async () => (view.end(await loadRecord(paths, run), sys.clock.now()), null));
      else view.apply(run, event);
      return;
    }
    if (final) emit(async () => view.end(await loadRecord(paths, run), sys.clock.now()));
    else {
      const line = view.apply(run, event);
      if (line) emit(() => line);
    }
  }, { onRun: (record) => view.add(record) });
  const timer = new AbortController();
  const timeoutMs = flags.timeout as number | undefined;
  try {
    await feed.ready;
    emit(() => {
      replayed = true;
      for (const line of view.snapshot()) printer.print(line);
      if (view.runs().length === 0) {
        throw new UsageError(`No runs in group "${group}"`, {
          hint: "list runs with `pitroom ls`",
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
    return 0;
  } finally {
    timer.abort();
    await feed.close();
    await queue.catch(() => undefined);
    printer.close();
  }
};
