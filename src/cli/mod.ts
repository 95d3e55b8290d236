/**
 * cli/: argv -> command -> output. Commands are declared as data in `commands.ts` (flags with
 * types and defaults, arguments, examples); `parse.ts` turns argv into options without effects,
 * `help.ts` generates help from the declarations, and each command module (loaded lazily) calls
 * the engine and prints: a report or a table for people, `--json` through one helper for
 * programs. `main.ts` maps errors to one line, a hint and a documented exit code.
 */
export { main } from "./main.ts";
export { COMMANDS } from "./commands.ts";
