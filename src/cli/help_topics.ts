/**
 * `pitroom help [COMMAND]`. The overview and a command's help read the declarations only; the
 * engine (for the event registries) loads for `help events` alone.
 */
import { UsageError } from "../sys/errors.ts";
import type { CommandRun, NoFlags } from "./command.ts";
import { COMMANDS, findCommand } from "./commands.ts";
import { commandHelp, overviewHelp } from "./help.ts";
import { VERSION } from "./version.ts";

/**
 * The event union as `show --events` prints it and the lines of `watch --json`, both generated
 * from their registries.
 */
export async function eventsHelp(): Promise<string> {
  const { describeEvents, describeWatchLines } = await import("../engine/present.ts");
  const lines = [
    "Events: one JSON object per line, each with `type` and `time` (ms since the epoch).",
    "`pitroom show RUN --events` prints a run's events; fields marked ? may be absent.",
    "",
  ];
  for (const [type, fields] of Object.entries(describeEvents())) {
    lines.push(`${type}`);
    for (const [name, shape] of Object.entries(fields)) lines.push(`  ${name}: ${shape}`);
  }
  lines.push(
    "",
    "Watch lines: `pitroom watch --json` prints one JSON object per change, each with `event`.",
    "",
  );
  for (const [name, fields] of Object.entries(describeWatchLines())) {
    lines.push(`${name}`);
    for (const [field, shape] of Object.entries(fields)) lines.push(`  ${field}: ${shape}`);
  }
  return lines.join("\n") + "\n";
}

/** Prints help. */
export const helpCommand: CommandRun<NoFlags> = async ({ sys, args }) => {
  const name = args[0];
  if (name === undefined) {
    sys.out.stdout(overviewHelp(COMMANDS, VERSION));
    return 0;
  }
  if (name === "events") {
    sys.out.stdout(await eventsHelp());
    return 0;
  }
  const def = findCommand(name);
  if (def === undefined) {
    throw new UsageError(`Unknown command "${name}"`, { hint: "see `pitroom help`" });
  }
  sys.out.stdout(commandHelp(def));
  return 0;
};
