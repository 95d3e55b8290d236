/**
 * The CLI: argv -> declared command -> implementation -> exit code. Errors become one line on
 * stderr plus at most one hint; an unexpected error also leaves its stack in a log file.
 */
import { join } from "../sys/path.ts";
import { exitCodeOf, PitroomError, RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { COMMANDS, findCommand } from "./commands.ts";
import { commandHelp, overviewHelp } from "./help.ts";
import { parseCommand, suggest } from "./parse.ts";
import { VERSION } from "./version.ts";
import { RECURSION_MARKER } from "../engine/mod.ts";

/** Runs the CLI and returns the exit code. */
export async function main(argv: string[], sys: Sys): Promise<number> {
  try {
    return await dispatch(argv, sys);
  } catch (error) {
    return report(sys, error);
  }
}

async function dispatch(argv: string[], sys: Sys): Promise<number> {
  // The recursion guard: every worker's environment carries the marker (engine/env.ts).
  const marked = sys.env.get(RECURSION_MARKER);
  if (marked !== undefined) {
    throw new RefusedError("recursion", `A worker may not start Pitroom (this is run "${marked}")`);
  }
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    sys.out.stdout(overviewHelp(COMMANDS, VERSION));
    return 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    sys.out.stdout(`pitroom ${VERSION}\n`);
    return 0;
  }
  const def = findCommand(name);
  if (def === undefined) {
    const guess = suggest(name, COMMANDS.filter((c) => !c.hidden).map((c) => c.name));
    throw new UsageError(`Unknown command "${name}"`, {
      hint: guess ? `did you mean \`pitroom ${guess}\`?` : "see `pitroom help`",
    });
  }
  const parsed = parseCommand(def, rest);
  if (parsed.help) {
    sys.out.stdout(commandHelp(def));
    return 0;
  }
  const run = await def.load();
  return await run({ sys, flags: parsed.flags, args: parsed.args });
}

function report(sys: Sys, error: unknown): number {
  if (error instanceof PitroomError) {
    sys.out.stderr(`pitroom: ${error.message}\n`);
    if (error.hint) sys.out.stderr(`hint: ${error.hint}\n`);
    return error.exit;
  }
  const message = error instanceof Error ? error.message : String(error);
  const logPath = writeCrashLog(sys, error);
  sys.out.stderr(`pitroom: unexpected error: ${message}\n`);
  if (logPath) sys.out.stderr(`hint: the details are in ${logPath}\n`);
  return exitCodeOf(error);
}

function writeCrashLog(sys: Sys, error: unknown): string | null {
  try {
    const dir = join(sys.stateDir, "logs");
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `crash-${sys.clock.now()}.log`);
    const stack = error instanceof Error ? error.stack ?? error.message : String(error);
    Deno.writeTextFileSync(path, stack + "\n", { mode: 0o600 });
    return path;
  } catch (logError) {
    if (
      logError instanceof Deno.errors.PermissionDenied || logError instanceof Deno.errors.NotFound
    ) return null;
    throw logError;
  }
}
