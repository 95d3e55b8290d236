/**
 * The CLI: argv -> declared command -> implementation -> exit code. Errors become one line on
 * stderr plus at most one hint (under `--json`, one JSON object: `{"error": {code, message,
 * hint}}`); an unexpected error also leaves its stack in a log file.
 */
import { join } from "../sys/path.ts";
import { isNoSpace, noSpaceIn } from "../sys/fs.ts";
import { errorLines, exitCodeOf, PitroomError, RefusedError, UsageError } from "../sys/errors.ts";
import type { Sys } from "../sys/mod.ts";
import { loadCommand } from "./command_list.ts";
import { safe } from "./safe.ts";
import { inFlags } from "./fields.ts";
import { buildInfo, VERSION, versionLine } from "./version.ts";
import { RECURSION_MARKER } from "../sys/marker.ts";
import { timingMark } from "../sys/timing.ts";

/** Runs the CLI and returns the exit code. */
export async function main(argv: string[], sys: Sys): Promise<number> {
  try {
    return await dispatch(argv, sys);
  } catch (error) {
    return report(sys, error, wantsJson(argv));
  }
}

async function dispatch(argv: string[], sys: Sys): Promise<number> {
  timingMark(sys, "main");
  // The recursion guard: every worker's environment carries the marker (confine/env.ts).
  const marked = sys.env.get(RECURSION_MARKER);
  if (marked !== undefined) {
    throw new RefusedError("recursion", `A worker may not start Pitroom (this is run "${marked}")`);
  }
  const [name, ...rest] = argv;
  if (name === undefined) {
    const first = await import("./first_run.ts");
    if (await first.isFirstRun(sys)) {
      await first.printWelcome(sys, VERSION);
      return 0;
    }
  }
  if (name === undefined || name === "--help" || name === "-h") {
    const [{ COMMANDS }, { overviewHelp }] = await Promise.all([
      import("./commands.ts"),
      import("./help.ts"),
    ]);
    sys.out.stdout(overviewHelp(COMMANDS, VERSION));
    return 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    const info = buildInfo();
    sys.out.stdout(
      rest.includes("--json") ? `${JSON.stringify(info)}\n` : `${versionLine(info)}\n`,
    );
    return 0;
  }
  const load = loadCommand(name);
  if (load === undefined) {
    const [{ COMMANDS }, { suggest }] = await Promise.all([
      import("./commands.ts"),
      import("./parse.ts"),
    ]);
    const guess = suggest(name, COMMANDS.filter((c) => !c.hidden).map((c) => c.name));
    throw new UsageError(`Unknown command "${name}"`, {
      hint: guess ? `did you mean \`pitroom ${guess}\`?` : "see `pitroom help`",
    });
  }
  const def = await load;
  const parsed = def.parse(rest);
  if (parsed.help) {
    const { commandHelp } = await import("./help.ts");
    sys.out.stdout(commandHelp(def));
    return 0;
  }
  return await parsed.run(sys);
}

/** Whether the command line asks for JSON (`--json` before any `--`). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json");
}

function report(sys: Sys, error: unknown, json: boolean): number {
  if (error instanceof PitroomError) {
    // The engine names request fields; the CLI says its flags (fields.ts).
    const message = safe(inFlags(error.message));
    const hint = error.hint === undefined ? null : safe(inFlags(error.hint));
    if (json) {
      printJson(sys, error.code, message, hint);
    } else {
      const [first, ...rest] = errorLines(error).map(inFlags);
      sys.out.stderr(`pitroom: ${safe(first!)}\n`);
      for (const line of rest) sys.out.stderr(`${safe(line)}\n`);
    }
    return error.exit;
  }
  const message = safe(error instanceof Error ? error.message : String(error));
  const unusable = stateDirProblem(sys, error) ?? noSpaceProblem(sys, error);
  if (unusable !== null) return report(sys, unusable, json);
  const logged = writeCrashLog(sys, error);
  const hint = logged.path
    ? `the details are in ${logged.path}`
    : `the details could not be kept (${safe(logged.problem ?? "")})`;
  if (json) {
    printJson(sys, "unexpected", `unexpected error: ${message}`, hint);
  } else {
    sys.out.stderr(`pitroom: unexpected error: ${message}\n`);
    sys.out.stderr(`hint: ${hint}\n`);
  }
  return exitCodeOf(error);
}

/** An error as the one JSON object `--json` callers read on stderr. */
function printJson(sys: Sys, code: string, message: string, hint: string | null): void {
  sys.out.stderr(`${JSON.stringify({ error: { code, message, hint } })}\n`);
}

/** A file-system error on the state folder (a plain file, read-only, not ours): exit 3. */
function stateDirProblem(sys: Sys, error: unknown): RefusedError | null {
  if (!(error instanceof Error) || !FS_ERRORS.some((kind) => error instanceof kind)) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== "EROFS" && code !== "ENOTDIR" && code !== "EACCES") return null;
  }
  const message = (error as Error).message;
  if (!message.includes(sys.stateDir)) return null;
  return new RefusedError(
    "state_dir",
    `The state folder "${sys.stateDir}" cannot be used: ${message}`,
    { hint: "set PITROOM_STATE_DIR to a folder you can write, or unset it" },
  );
}

/**
 * A full disk under the state folder (said by the error, or an I/O error that a probe write
 * there explains): exit 3, one line, no crash log (there is no room for one).
 */
function noSpaceProblem(sys: Sys, error: unknown): RefusedError | null {
  const said = isNoSpace(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (!said && !/disk I\/O error|os error 5\b/i.test(detail)) return null;
  // SQLite does not name the file: a probe write tells whether the state folder's disk is full.
  const inState = detail.includes(sys.stateDir) || noSpaceIn(sys.stateDir);
  if (!said && !inState) return null;
  const where = inState ? `for the state folder "${sys.stateDir}"` : "on the disk";
  return new RefusedError("no_space", `No space left ${where}: ${detail}`, {
    hint: "free some space on that disk, then run it again (ls, status and show still work)",
  });
}

const FS_ERRORS = [
  Deno.errors.NotADirectory,
  Deno.errors.PermissionDenied,
  Deno.errors.AlreadyExists,
  Deno.errors.IsADirectory,
];

/** Keeps the stack of an unexpected error; says why when it cannot (never throws). */
function writeCrashLog(
  sys: Sys,
  error: unknown,
): { path: string; problem?: undefined } | { path?: undefined; problem: string } {
  try {
    const dir = join(sys.stateDir, "logs");
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `crash-${sys.clock.now()}.log`);
    const stack = error instanceof Error ? error.stack ?? error.message : String(error);
    Deno.writeTextFileSync(path, stack + "\n", { mode: 0o600 });
    return { path };
  } catch (logError) {
    // Reported on the hint line: the failed write is said, not swallowed.
    return { problem: logError instanceof Error ? logError.message : String(logError) };
  }
}
