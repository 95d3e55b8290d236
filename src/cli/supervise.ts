/**
 * The hidden `__supervise` command: the background host of a state dir (src/engine/host/host.ts).
 * SIGTERM or SIGINT stops every run it hosts, then it exits.
 */
import { createEngine } from "../engine/mod.ts";
import type { CommandRun, NoFlags } from "./command.ts";

/** Hosts background runs until none is left. */
export const superviseCommand: CommandRun<NoFlags> = async ({ sys }) => {
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("stopped"));
  Deno.addSignalListener("SIGTERM", onSignal);
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    await createEngine(sys).host({ signal: stop.signal });
    return 0;
  } finally {
    Deno.removeSignalListener("SIGTERM", onSignal);
    Deno.removeSignalListener("SIGINT", onSignal);
  }
};
