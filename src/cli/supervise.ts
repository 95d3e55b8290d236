/**
 * The hidden `__supervise` command: the background host of a state dir (src/engine/host/host.ts).
 * SIGTERM or SIGINT stops every run it hosts, then it exits. It starts the live view for runs
 * that go on (live_view.ts).
 */
import { createEngine } from "../engine/mod.ts";
import type { CommandRun, NoFlags } from "./command.ts";
import { hostLongRun } from "./live_view.ts";

/** Hosts background runs until none is left. */
export const superviseCommand: CommandRun<NoFlags> = async ({ sys }) => {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("stopped"));
  Deno.addSignalListener("SIGTERM", onSignal);
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    // A run still going after a few seconds starts the live view (the one dashboard).
    await createEngine(sys).host({ signal: stop.signal, longRun: hostLongRun() });
    return 0;
  } finally {
    Deno.removeSignalListener("SIGTERM", onSignal);
    Deno.removeSignalListener("SIGINT", onSignal);
  }
};
