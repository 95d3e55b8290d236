/**
 * cli/: argv -> command -> output. Each command is declared beside its code (`run_command.ts`
 * beside `run.ts`) with `defineCommand` (command.ts): name, summary, typed flags, arguments,
 * examples and a lazy `run`. `command_list.ts` is the one list of commands, and loads only the
 * declaration of the command used; `parse.ts` turns argv into flag values typed from the
 * declaration, without effects; `help.ts` and the completions read the declarations
 * (`commands.ts` loads them all). Each command's code calls the engine and prints: a report or a
 * table for people, `--json` through one helper for programs. `main.ts` maps errors to one
 * line, a hint and a documented exit code.
 */
export { main } from "./main.ts";
export { COMMANDS } from "./commands.ts";
