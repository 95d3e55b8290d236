/**
 * Every command's declaration, loaded from the command list (command_list.ts): what the
 * overview, `pitroom help`, the completions and the CLI reference (docs/cli.md) read.
 */
import type { CommandDef } from "./command.ts";
import { loadCommands } from "./command_list.ts";

/** The command table, in help's order. */
export const COMMANDS: readonly CommandDef[] = await loadCommands();

/** Finds a command by name. */
export function findCommand(name: string): CommandDef | undefined {
  return COMMANDS.find((c) => c.name === name);
}
