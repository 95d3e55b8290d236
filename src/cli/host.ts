/**
 * `pitroom host manifest NAME` and `pitroom host serve` (engine/remote/): the manifest a
 * container host runs a worker with, and the host's side of a remote run over SSH.
 */
import { createEngine } from "../engine/mod.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun, NoFlags } from "./command.ts";

/** Serves a remote launch, or prints a container host's manifest. */
export const hostCommand: CommandRun<NoFlags> = async ({ sys, args }) => {
  const engine = createEngine(sys);
  const [action, name] = args;
  if (action === "serve") {
    // The channel is this process's stdin and stdout (an SSH session's).
    return await engine.serveLaunch(Deno.stdin.readable, Deno.stdout.writable);
  }
  if (action === "manifest") {
    if (name === undefined) {
      throw new UsageError("Which host? Give its name", { hint: "pitroom host manifest NAME" });
    }
    sys.out.stdout(await engine.hostManifest(name));
    return 0;
  }
  throw new UsageError(`Unknown action "${action}": give manifest (or serve)`, {
    hint: "pitroom host manifest NAME",
  });
};
