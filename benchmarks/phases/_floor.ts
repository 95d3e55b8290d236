/**
 * The floor of a write run (benchmarks/phases/run.ts): the steps no write run that tracks exactly
 * what its worker changed can leave out, and nothing of Pitroom's own. Deno starts (the same
 * runtime, permission set and V8 flags as pitroom), the tree is walked as Pitroom's snapshot walks
 * it (one `git status`), the stub worker runs in a bubblewrap sandbox with the fewest options that
 * still give it the tree to write in (the stub alone where there is no bwrap), and the tree is
 * walked again. No watch, no record, no objects, no history: a lower bound, not a run.
 *
 *   deno run -P=pitroom _floor.ts ROOT STUB STATUS_ARG...
 *
 * STATUS_ARG...: the walk's `git status` arguments (vcs/walk_start.ts's, handed in by the bench so
 * that the floor loads none of Pitroom's code).
 *
 * Exits 0 when every step did, 1 with the failing step on stderr, 2 on bad arguments.
 */

if (Deno.args.length < 3) {
  console.error("usage: _floor.ts ROOT STUB STATUS_ARG...");
  Deno.exit(2);
}
const [given, stub, ...statusArgs] = Deno.args as [string, string, ...string[]];
/** The tree's real path: bwrap binds a folder, not a symbolic link to one. */
let root: string;
try {
  root = Deno.realPathSync(given);
} catch (error) {
  console.error(`no tree at ${given}: ${error instanceof Error ? error.message : error}`);
  Deno.exit(2);
}

/** Runs `cmd` to its end; a failure ends the script. */
async function step(what: string, cmd: string, args: string[]): Promise<void> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(cmd, {
      args,
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    console.error(`${what} failed to start: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
  if (!out.success) {
    console.error(`${what} failed (exit ${out.code}): ${new TextDecoder().decode(out.stderr)}`);
    Deno.exit(1);
  }
}

/** The walk of the snapshot, on the user's index, which it leaves as it is. */
const walk = () => step("git status", "git", ["--no-optional-locks", ...statusArgs]);

/** Whether bwrap is on PATH. */
function hasBwrap(): boolean {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/bwrap`).isFile) return true;
    } catch {
      // Not here.
    }
  }
  return false;
}

await walk();
const worker = [stub, "run", "Answer Done"];
if (hasBwrap()) {
  await step("the sandboxed stub", "bwrap", [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--bind",
    root,
    root,
    "--unshare-pid",
    "--die-with-parent",
    "--chdir",
    root,
    ...worker,
  ]);
} else {
  await step("the stub", worker[0]!, worker.slice(1));
}
await walk();
