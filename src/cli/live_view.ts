/**
 * A live view for long runs: a run still going after a few seconds starts the dashboard (unless
 * `"dash": false` or `PITROOM_DASH=0`), one per state dir, reused by every later run. It is
 * started off every run's path: launched detached (server/dash/launch.ts) and never awaited,
 * so a run is not delayed by it, and its process is the only one that loads the server.
 *
 * - A foreground run launches it from its own timer; the address is said once: on a terminal
 *   (stderr) as soon as it is known, otherwise (an agent's shell, or it came too late) with the
 *   report; under `--json` only in the report's `dashboard`.
 * - Background runs (`--bg`, a crew) execute in the host: it launches the dashboard for a run
 *   still going after a few seconds (`hostLongRun`, one launch at a time for all its runs); the
 *   starting command only says the address of one that is live already.
 *
 * Every address said carries its own one-time token (src/server/dash/door.ts): it opens the
 * dashboard in one click, for one browser. Nothing opens a browser.
 */
import { createEngine } from "../engine/mod.ts";
import type { Sys, Timer } from "../sys/mod.ts";
import { warn } from "./output.ts";

/** The light side of the dashboard (files and a lock; no server), loaded when first wanted. */
function light() {
  return Promise.all([import("../server/dash/record.ts"), import("../server/dash/launch.ts")]);
}

/** How long a run goes on before it is worth a live view. */
export const LONG_RUN_MS = 3_000;

/** The line that says the address. */
export function liveViewLine(address: string, id: string): string {
  return `Live view of every run: ${address}#${id}\n`;
}

/** True when the settings (in `sys`'s environment and config) want a live view. */
async function wanted(sys: Sys): Promise<boolean> {
  return (await createEngine(sys).settings()).settings.dash.value;
}

/** How a foreground run says the address. */
export interface LiveViewOptions {
  /** Say it on stderr as soon as it is known (a person at a terminal). */
  early: boolean;
}

/**
 * A foreground run's live view: after `LONG_RUN_MS` the live dashboard's address, or a launched
 * one's once it serves; `end()` hands the report what is left to say.
 */
export class LiveViewLater {
  #sys: Sys;
  #early: boolean;
  #timer: Timer | undefined;
  #ended = false;
  #said = false;
  #address: string | undefined;
  #launch: { cancel(): void; address: Promise<string | undefined> } | undefined;
  #started: Promise<void> | undefined;
  #id: string | undefined;

  constructor(sys: Sys, options: LiveViewOptions) {
    this.#sys = sys;
    this.#early = options.early;
  }

  /**
   * Starts counting `LONG_RUN_MS`: once the worker is spawned, or the run waits (queued for a
   * slot, parked); later calls do nothing. Not before: a process's first timer costs the
   * runtime 12-15 ms here (it loads its timers then), which would delay the worker's start.
   */
  begin(): void {
    if (this.#timer !== undefined || this.#started !== undefined || this.#ended) return;
    const sys = this.#sys;
    this.#timer = sys.clock.after(LONG_RUN_MS, () => {
      this.#timer = undefined;
      this.#started = this.#start().catch((error) =>
        warn(sys, [
          `the live view did not start: ${error instanceof Error ? error.message : error}`,
        ])
      );
    });
  }

  async #start(): Promise<void> {
    if (!(await wanted(this.#sys)) || this.#ended) return;
    const [record, launch] = await light();
    const live = await record.liveLink(this.#sys);
    if (live !== null) return this.#known(live);
    if (this.#ended) return;
    this.#launch = launch.launchDashboard(this.#sys);
    const address = await this.#launch.address;
    if (address !== undefined) this.#known(address);
  }

  #known(address: string): void {
    if (this.#ended) return;
    this.#address = address;
    if (this.#early && this.#id !== undefined) {
      this.#said = true;
      this.#sys.out.stderr(`pitroom: ${liveViewLine(address, this.#id)}`);
    }
  }

  /** The run's id, once it is known (for the address's `#<run-id>`). */
  set id(id: string) {
    this.#id ??= id;
  }

  /**
   * The run ended: nothing starts any more and nothing is waited for (a dashboard still
   * starting goes on by itself). The address for the report, unless it was said already; a
   * new token when the first one may have been opened.
   */
  async end(): Promise<string | undefined> {
    if (this.#ended) return undefined;
    this.#ended = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#launch?.cancel();
    await this.#started;
    if (this.#said || this.#started === undefined) return undefined;
    // Never said: its token is unspent.
    if (this.#address !== undefined) return this.#address;
    if (this.#launch === undefined) return undefined;
    // Launched: it may serve by now though its line was not read yet.
    const [record] = await light();
    return (await record.liveLink(this.#sys)) ?? undefined;
  }
}

/**
 * A background run's live view: the live dashboard's address, or undefined (none runs yet, or
 * the config turns it off). It starts nothing: the host does, for runs that go on.
 */
export async function liveViewForBackground(sys: Sys): Promise<string | undefined> {
  if (!(await wanted(sys))) return undefined;
  const [record] = await light();
  return (await record.liveLink(sys)) ?? undefined;
}

/**
 * The host's side: told about each run still going after `LONG_RUN_MS`, it launches the
 * dashboard unless one is live or a launch is under way (a crew's runs all go long at once).
 */
export function hostLongRun(): {
  afterMs: number;
  notify(sys: Sys, run: string): Promise<void> | undefined;
} {
  let launching: Promise<void> | undefined;
  const launch = async (sys: Sys) => {
    if (!(await wanted(sys))) return;
    const [record, launcher] = await light();
    if ((await record.liveDashboard(sys)) !== null) return;
    await launcher.launchDashboard(sys).address;
  };
  return {
    afterMs: LONG_RUN_MS,
    notify(sys) {
      if (launching !== undefined) return undefined;
      launching = launch(sys).finally(() => (launching = undefined));
      return launching;
    },
  };
}
