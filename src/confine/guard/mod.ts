/**
 * The guard every worker runs under, written into one folder of Pitroom's state dir:
 * - `bin/`, first on the worker's PATH: the git shim (guard_git.ts) and the floor's program shims
 *   (guard_floor.ts: `sudo`, `pitroom`, publishing commands);
 * - `hooks/`, where the worker's git configuration points `core.hooksPath` (guard_hooks.ts): the
 *   second layer, which holds when git is run past the shim.
 * Everything is rewritten before each attempt when it differs (content or mode), so a worker
 * that deleted or edited a shim does not leave the next attempt unguarded.
 */
import {
  DENIED_GIT_SUBCOMMANDS,
  DENIED_PROGRAMS,
  DENIED_PROGRAMS_WHY,
  GIT_FORMS,
  PUBLISHING,
  PUBLISHING_WHY,
  RECURSION_PROGRAM,
  RECURSION_WHY,
} from "../floor.ts";
import { join } from "../../sys/path.ts";
import { gitShimScript } from "./git.ts";
import {
  type GuardedProgram,
  guardedProgramScript,
  type RefusedProgram,
  refusedProgramScript,
} from "./floor.ts";
import { guardHooks } from "./hooks.ts";

export { FORM_CHECKERS, type GitShimOptions, gitShimScript } from "./git.ts";
export type { GuardedProgram, RefusedProgram } from "./floor.ts";
export { guardGitConfig, guardGitEnv, NO_PROMPT_ENV, NOWHERE } from "./hooks.ts";

/** What the guard refuses. */
export interface GuardOptions {
  /** Git subcommands refused whatever their arguments. */
  gitRefused: readonly string[];
  /** Git subcommands refused in their writing forms. */
  gitForms: readonly string[];
  /** Programs refused outright. */
  refused: readonly RefusedProgram[];
  /** Programs refused in some forms. */
  guarded: readonly GuardedProgram[];
}

/** What the worker floor (policy/floor.ts) has the guard refuse. */
const FLOOR_GUARD: GuardOptions = {
  gitRefused: DENIED_GIT_SUBCOMMANDS,
  gitForms: Object.keys(GIT_FORMS),
  refused: [
    ...DENIED_PROGRAMS.map((program) => ({ program, why: DENIED_PROGRAMS_WHY })),
    // Exit 3, Pitroom's own refusal code, as if the worker's Pitroom had refused itself.
    { program: RECURSION_PROGRAM, why: RECURSION_WHY, exitCode: 3 },
  ],
  guarded: PUBLISHING.map((rule) => ({ ...rule, why: PUBLISHING_WHY })),
};

/** Where the guard's parts are. */
export interface GuardPaths {
  /** The shims' folder, first on the worker's PATH. */
  bin: string;
  /** The hooks' folder (`core.hooksPath`). */
  hooks: string;
}

/** Every file of the guard under `dir`, by path relative to it (pure). */
export function guardFiles(dir: string, options: GuardOptions): Record<string, string> {
  const bin = join(dir, "bin");
  const files: Record<string, string> = {
    "bin/git": gitShimScript({ self: bin, refused: options.gitRefused, forms: options.gitForms }),
  };
  for (const rule of options.refused) files[`bin/${rule.program}`] = refusedProgramScript(rule);
  for (const rule of options.guarded) {
    files[`bin/${rule.program}`] = guardedProgramScript(bin, rule);
  }
  for (const [name, script] of Object.entries(guardHooks())) files[`hooks/${name}`] = script;
  return files;
}

/**
 * A guard file as it is. Read synchronously: every run checks the guard's ~37 files before its
 * worker starts, and 74 asynchronous reads and stats per run, each a round trip through the
 * runtime's thread pool, held back the other runs of a crew starting in the same host (a crew of
 * 10 took 50-220 ms here where one run takes 15).
 */
function current(path: string): { text: string; mode: number | null } | null {
  try {
    const text = Deno.readTextFileSync(path);
    const info = Deno.statSync(path);
    return { text, mode: info.mode === null ? null : info.mode & 0o777 };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

let written = 0;

async function writeExecutable(path: string, script: string): Promise<void> {
  const now = current(path);
  if (now !== null && now.text === script && (now.mode === null || now.mode === 0o755)) return;
  // Unique per write: one process (the host) may repair the guard for several runs at once.
  const temp = `${path}.${Deno.pid}.${written++}.tmp`;
  await Deno.writeTextFile(temp, script, { mode: 0o755 });
  await Deno.chmod(temp, 0o755);
  await Deno.rename(temp, path);
}

/** Writes (or repairs) the floor's guard under `dir` and returns where its parts are. */
export async function writeGuard(dir: string): Promise<GuardPaths> {
  const paths = { bin: join(dir, "bin"), hooks: join(dir, "hooks") };
  await Deno.mkdir(paths.bin, { recursive: true, mode: 0o700 });
  await Deno.mkdir(paths.hooks, { recursive: true, mode: 0o700 });
  const files = guardFiles(dir, FLOOR_GUARD);
  await Promise.all(
    Object.entries(files).map(([name, script]) => writeExecutable(join(dir, name), script)),
  );
  return paths;
}
