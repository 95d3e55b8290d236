/**
 * Starting the dashboard in the background without waiting for it: `launchDashboard` spawns
 * `pitroom dash --json` detached (it takes the start lock itself: it serves, or finds the live
 * one and ends, so two launches at once end up with one dashboard) and looks on the side for the
 * live dashboard's address in the state dir (record.ts: files and a lock) until it is there.
 * Nobody has to await it: a run that ends first cancels the looking and goes; the dashboard goes
 * on. Its output goes nowhere: a pitroom writing to a pipe whose reader has gone can end there
 * (`pitroom dash --json | true` from a shell ends at its first line, with 0), so a dashboard does
 * not write its address to a launcher that may be gone.
 * Light: it loads nothing of the server (what a long run and the host call).
 */
import { sleepOn, type Sys } from "../../sys/mod.ts";
import { liveLink } from "./record.ts";

/** How long a start may take before it is given up. */
export const START_MS = 30_000;
/** How often the state dir is looked at for the started dashboard. */
const LOOK_MS = 100;

/** A dashboard being started in the background. */
export interface Launch {
  /** Its address (with a one-time token) once it serves; undefined when it did not start. */
  address: Promise<string | undefined>;
  /** Stops looking for it (the dashboard goes on); `address` then resolves undefined. */
  cancel(): void;
}

/** Spawns `pitroom dash --json` detached and looks for its address on the side. */
export function launchDashboard(sys: Sys): Launch {
  // It takes the start lock itself, whoever its parent is.
  const { PITROOM_DASH_LOCKED: _, ...env } = sys.env.toObject();
  const child = sys.runner.spawn([...sys.selfCommand(), "dash", "--json"], {
    detached: true,
    stdout: "null",
    stderr: "null",
    stdin: { kind: "null" },
    env: { ...env, PITROOM_STATE_DIR: sys.stateDir },
  });
  child.unref();
  let ended = false;
  child.status.then(() => (ended = true), () => (ended = true));
  const looking = new AbortController();
  const address = (async () => {
    const until = sys.clock.now() + START_MS;
    while (!looking.signal.aborted && sys.clock.now() < until) {
      // Once it has ended, one last look: it served nothing, or it found the live one.
      const last = ended;
      const link = await liveLink(sys);
      if (link !== null || last) return link ?? undefined;
      try {
        await sleepOn(sys.clock, LOOK_MS, looking.signal);
      } catch {
        // Cancelled: the one who launched it has gone on.
      }
    }
    return undefined;
  })();
  return { address, cancel: () => looking.abort(new Error("cancelled")) };
}
