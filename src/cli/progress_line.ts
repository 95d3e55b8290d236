/**
 * The live one-line progress of `wait` and `watch` on a terminal: `3/10 done · 2 running ·
 * 12k tokens · 1m04s`, and for a single run its steps and last action (`running · 4 steps ·
 * read src/a.ts · 1.2k tokens · 12s`). `progressLine` says it (pure); `LiveLine` keeps it
 * redrawn in place on stderr (carriage return, erase the line), and `followProgress` feeds it
 * from the runs' events while `wait` waits. Only ever on a terminal, never under `--json`:
 * piped output stays the plain lines it was.
 */
import type { Engine, RunView } from "../engine/mod.ts";
import { formatTokens, LiveFold } from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import type { Sys } from "../sys/mod.ts";
import { oneLine } from "../sys/text.ts";
import { safe } from "./safe.ts";

/** The widest the line gets (an 80-column terminal does not wrap it). */
const WIDTH = 79;

/** How often the line is redrawn at most (and at least once a second: the clock moves). */
const REDRAW_MS = 200;

/** The progress of `views` at `now`, elapsed from `since` (the earliest start when known). */
export function progressLine(views: readonly RunView[], now: number, since: number): string {
  const started = views.flatMap((v) => (v.startedAt === undefined ? [] : [v.startedAt]));
  const from = Math.min(since, ...started);
  const tokens = views.reduce((n, v) => n + v.tokens.input + v.tokens.output, 0);
  const tail = [
    ...(tokens > 0 ? [`${formatTokens(tokens)} tokens`] : []),
    formatDuration(Math.max(0, now - from)),
  ];
  if (views.length === 1) {
    const v = views[0]!;
    const state = v.end ? (v.end.event === "done" ? "done" : "failed") : v.phase;
    const parts = [
      state,
      ...(v.steps > 0 ? [`${v.steps} step${v.steps === 1 ? "" : "s"}`] : []),
      ...(v.last && !v.end ? [v.last] : []),
      ...tail,
    ];
    return fit(parts);
  }
  const done = views.filter((v) => v.end).length;
  const running = views.filter((v) => !v.end && v.phase === "running").length;
  const queued = views.filter((v) => !v.end && v.phase === "queued").length;
  const failed = views.filter((v) => v.end && v.end.event !== "done").length;
  return fit([
    `${done}/${views.length} done`,
    ...(failed > 0 ? [`${failed} failed`] : []),
    ...(running > 0 ? [`${running} running`] : []),
    ...(queued > 0 ? [`${queued} queued`] : []),
    ...tail,
  ]);
}

/** The parts joined, made safe (a worker's action is its text), cut to the width. */
function fit(parts: string[]): string {
  return oneLine(safe(parts.join(" · ")), WIDTH);
}

/** A line on stderr redrawn in place; `clear()` leaves the terminal as it found it. */
export class LiveLine {
  #sys: Sys;
  #shown = false;

  constructor(sys: Sys) {
    this.#sys = sys;
  }

  show(text: string): void {
    this.#sys.out.stderr(`\r\x1b[K${text}`);
    this.#shown = true;
  }

  clear(): void {
    if (!this.#shown) return;
    this.#sys.out.stderr("\r\x1b[K");
    this.#shown = false;
  }
}

/** What `followProgress` hands back: stops following and erases the line. */
export interface Following {
  stop(): Promise<void>;
}

/**
 * Keeps the progress of runs `ids` on a live line while they are waited for: their events
 * (folded as `watch` folds them), a redraw at most every 200 ms and at least every second.
 */
export function followProgress(sys: Sys, engine: Engine, ids: readonly string[]): Following {
  const fold = new LiveFold();
  const line = new LiveLine(sys);
  const since = sys.clock.now();
  let stopped = false;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const draw = () => {
    pending = undefined;
    if (!stopped && fold.runs().length > 0) {
      line.show(progressLine(fold.runs(), sys.clock.now(), since));
    }
  };
  const soon = () => (pending ??= setTimeout(draw, REDRAW_MS));
  const ending: Promise<unknown>[] = [];
  const feed = engine.subscribe({ runs: ids }, ({ run, event }) => {
    if (event.type === "run.finished" || event.type === "run.lost") {
      // The record makes the end; a record that cannot be read still ends the run on the line.
      ending.push(
        engine.get(run).then(
          (r) => fold.end(r, sys.clock.now()),
          () => fold.endFromEvent(run, event),
        ),
      );
    } else fold.apply(run, event);
    soon();
  }, { onRun: (record) => void fold.add(record) });
  const ticker = setInterval(draw, 1000);
  return {
    async stop() {
      stopped = true;
      clearInterval(ticker);
      clearTimeout(pending);
      await feed.close();
      await Promise.all(ending);
      line.clear();
    },
  };
}
