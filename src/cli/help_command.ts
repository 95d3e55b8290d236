/** `pitroom help [COMMAND]`. */
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import { COMMANDS, findCommand } from "./commands.ts";
import { commandHelp, overviewHelp } from "./help.ts";
import { VERSION } from "./version.ts";

/** Prints help. */
export const helpCommand: CommandRun = ({ sys, args }) => {
  const name = args[0];
  if (name === undefined) {
    sys.out.stdout(overviewHelp(COMMANDS, VERSION));
    return Promise.resolve(0);
  }
  const def = findCommand(name);
  if (def === undefined) {
    throw new UsageError(`Unknown command "${name}"`, { hint: "see `pitroom help`" });
  }
  sys.out.stdout(commandHelp(def));
  return Promise.resolve(0);
};
