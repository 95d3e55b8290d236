/**
 * A live view for long runs: a run the CLI started that is still going after a few seconds
 * starts the dashboard (unless `"dash": false` or `PITROOM_DASH=0`) and its report carries the
 * address. Quick runs are not delayed and start nothing; nothing opens a browser.
 *
 * A foreground run starts it from its own process (a timer). A background run (`--bg`) returns
 * at once (a crew too): when no dashboard runs, it leaves a detached `pitroom dash --after-run
 * IDS` behind, which serves only if one of those runs is still going a few seconds later.
 *
 * Every address printed carries its own one-time token (src/server/dash/door.ts): it opens the
 * dashboard in one click, for one browser.
 *
 * The dashboard's server (Hono and the routes) loads only when a live view is wanted: a quick
 * run never loads it.
 */
import { createEngine } from "../engine/mod.ts";

import type { Sys, Timer } from "../sys/mod.ts";
import { warn } from "./output.ts";

/** The dashboard's server, loaded when first wanted. */
function dashboard(): Promise<typeof import("../server/dash/mod.ts")> {
  return import("../server/dash/mod.ts");
}

/** How long a run goes on before it is worth a live view. */
export const LONG_RUN_MS = 3_000;

/** The line a report ends with. */
export function liveViewLine(address: string, id: string): string {
  return `Live view of every run: ${address}#${id}\n`;
}

/** A foreground run's live view: started once the run has gone on for `LONG_RUN_MS`. */
export class LiveViewLater {
  #sys: Sys;
  #timer: Timer | undefined;
  #address: Promise<string | undefined> | undefined;
  #id: string | undefined;

  constructor(sys: Sys) {
    this.#sys = sys;
    this.#timer = sys.clock.after(LONG_RUN_MS, () => {
      this.#timer = undefined;
      this.#address = dashboard().then((dash) =>
        dash.ensureDashboard(sys, { onError: (e) => warn(sys, [e.message]) })
      ).then(
        (address) => {
          if (address !== undefined && this.#id !== undefined) {
            sys.out.stderr(`pitroom: ${liveViewLine(address, this.#id)}`);
          }
          return address;
        },
      );
    });
  }

  /** The run's id, once it is known (for the address's `#<run-id>`). */
  set id(id: string) {
    this.#id ??= id;
  }

  /**
   * The run ended: no dashboard starts any more; when one was started, its address with a new
   * token (the first one may have been opened already).
   */
  async end(): Promise<string | undefined> {
    this.#timer?.cancel();
    this.#timer = undefined;
    const started = this.#address;
    this.#address = undefined;
    if ((await started) === undefined) return undefined;
    return (await (await dashboard()).liveLink(this.#sys)) ?? undefined;
  }
}

/**
 * A background run's live view: the running dashboard's address, or undefined after leaving a
 * detached starter behind (none when the config turns it off).
 */
export async function liveViewForBackground(
  sys: Sys,
  ids: readonly string[],
): Promise<string | undefined> {
  const { settings } = await createEngine(sys).settings();
  if (!settings.dash.value) return undefined;
  const link = await (await dashboard()).liveLink(sys);
  if (link !== null) return link;
  const child = sys.runner.spawn([...sys.selfCommand(), "dash", "--after-run", ids.join(",")], {
    detached: true,
    stdout: "null",
    stderr: "null",
    stdin: { kind: "null" },
    env: { ...sys.env.toObject(), PITROOM_STATE_DIR: sys.stateDir },
  });
  child.unref();
  return undefined;
}
