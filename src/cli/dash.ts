/**
 * `pitroom dash`: the live dashboard on 127.0.0.1. In the foreground it serves until Ctrl-C or
 * `--idle` without a request (and no run going; the config's `dashIdle` when not given);
 * `--detach` starts it in the background (or reuses the running one) and prints its address;
 * `--stop` ends it; `--open` opens the system browser.
 */
import { PitroomError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { createEngine } from "../engine/mod.ts";
import { formatDuration } from "../sys/duration.ts";
import { liveLink, runDashboard, startDetached, stopDashboard } from "../server/dash/mod.ts";
import type { CommandRun, FlagValuesOf } from "./command.ts";
import type { DASH_FLAGS } from "./dash_command.ts";

type DashValues = FlagValuesOf<typeof DASH_FLAGS>;
import { printJsonLine, warn } from "./output.ts";

/** Serves, starts, or stops the dashboard. */
export const dashCommand: CommandRun<typeof DASH_FLAGS> = async ({ sys, flags }) => {
  const options = await dashOptions(sys, flags);
  if (flags.stop) {
    if (flags.detach || flags.open || flags.port !== undefined) {
      throw new UsageError("--stop takes no other flag but --json");
    }
    const stopped = await stopDashboard(sys);
    if (flags.json) {
      printJsonLine(sys, stopped ? { stopped: true, pid: stopped.pid } : { stopped: false });
    } else {
      sys.out.stderr(
        stopped ? `Stopped the dashboard at ${stopped.address}\n` : "No dashboard is running\n",
      );
    }
    return 0;
  }
  if (flags.detach) {
    const started = await startDetached(sys, options);
    if (flags.json) printJsonLine(sys, started);
    else {
      sys.out.stdout(`${started.address}\n`);
      if (started.reused) sys.out.stderr(`pitroom: the dashboard was running already\n`);
    }
    // The browser gets its own token: the printed address stays good for another.
    if (flags.open) openBrowser(sys, (await liveLink(sys)) ?? started.address);
    return 0;
  }
  return await serveHere(sys, flags, options);
};

async function dashOptions(
  sys: Sys,
  flags: DashValues,
): Promise<{ port?: number; idleMs: number }> {
  const port = flags.port;
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
    throw new UsageError(`--port must be a port number 1..65535: "${port}"`);
  }
  return {
    idleMs: flags.idle ?? (await createEngine(sys).settings()).settings.dashIdle.value.ms,
    ...(port === undefined ? {} : { port }),
  };
}

async function serveHere(
  sys: Sys,
  flags: DashValues,
  options: { port?: number; idleMs: number },
): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("interrupted"));
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    let running;
    try {
      running = await runDashboard(sys, { ...options, signal: stop.signal });
    } catch (error) {
      // A detached start reads this line to say why it failed.
      if (flags.json && error instanceof PitroomError) printJsonLine(sys, { error: error.message });
      throw error;
    }
    if ("other" in running) {
      const { other } = running;
      if (flags.json) printJsonLine(sys, other);
      else {
        sys.out.stdout(`${other.address}\n`);
        sys.out.stderr(`pitroom: the dashboard runs already (pid ${other.pid})\n`);
      }
      if (flags.open) openBrowser(sys, (await liveLink(sys)) ?? other.address);
      return 0;
    }
    const { served } = running;
    const address = await served.link();
    if (flags.json) {
      printJsonLine(sys, { address, pid: sys.pid, port: served.port, reused: false });
    } else {
      sys.out.stdout(`${address}\n`);
      sys.out.stderr(
        `Live view of every run: the address above lets one browser in (stops after ${
          formatDuration(options.idleMs)
        } without a request and no run going; Ctrl-C stops it now)\n`,
      );
    }
    if (flags.open) openBrowser(sys, await served.link());
    await served.finished;
    if (!flags.json && served.reason() === "idle") {
      sys.out.stderr(`Stopped the dashboard after ${formatDuration(options.idleMs)} idle\n`);
    }
    return 0;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }
}

/** Opens `address` in the system browser (only ever on `--open`). */
function openBrowser(sys: Sys, address: string): void {
  const opener = Deno.build.os === "darwin" ? "open" : "xdg-open";
  try {
    const child = sys.runner.spawn([opener, address], {
      detached: true,
      stdout: "null",
      stderr: "null",
      stdin: { kind: "null" },
    });
    child.unref();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    warn(sys, [`cannot open a browser (no \`${opener}\`): open ${address} yourself`]);
  }
}
