/**
 * The world of the crash and attribution tests: a repository holding the user's own work
 * (unstaged, staged, untracked, a stash and a branch), a state dir whose config lets the fake
 * worker leave marks in a folder outside its tree, a child Pitroom (crash_child.ts) to kill, and
 * the engine of this process (its fake worker plays `script.steps`).
 */
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import type { ChildJob } from "./crash_child.ts";
import { fakeBackend, type FakeStep } from "./fake_backend.ts";
import { testSys } from "./sys.ts";
import { git, tempDir, tempRepo } from "./temp.ts";

const CHILD = new URL("./crash_child.ts", import.meta.url).pathname;

/** Makes the world; `sandbox: "off"` runs the workers without the sandbox. */
export async function crashWorld(options: { sandbox?: "off" } = {}) {
  const state = await tempDir("pitroom-state-");
  const marks = await tempDir("pitroom-marks-");
  // The fake worker leaves its marks outside its tree: a folder the sandbox lets it write.
  await Deno.writeTextFile(
    join(state.path, "no-config.json"),
    JSON.stringify({ sandbox: { mode: options.sandbox ?? "auto", writable: [marks.path] } }),
  );
  const repo = await tempRepo({ "a.txt": "one\n", "b.txt": "bee\n", "keep.txt": "keep\n" });
  await Deno.writeTextFile(join(repo.path, "keep.txt"), "keep\nmine\n");
  await Deno.writeTextFile(join(repo.path, "stashed.txt"), "stash me\n");
  await git(repo.path, "add", "stashed.txt");
  await git(repo.path, "stash", "-q");
  await Deno.writeTextFile(join(repo.path, "b.txt"), "bee staged\n");
  await git(repo.path, "add", "b.txt");
  await Deno.writeTextFile(join(repo.path, "notes.txt"), "my notes\n");
  await git(repo.path, "branch", "feature");
  const sys = testSys({ stateDir: state.path, cwd: repo.path });
  const script = { steps: [] as FakeStep[] };
  const backend = fakeBackend(() => script.steps);
  return {
    sys,
    script,
    engine: createEngine(sys, { backends: () => backend, dir: repo.path }),
    repo: repo.path,
    state: state.path,
    marks: marks.path,
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
      await marks[Symbol.asyncDispose]();
    },
  };
}

/** A world of `crashWorld`. */
export type CrashWorld = Awaited<ReturnType<typeof crashWorld>>;

/** Starts a child Pitroom on `job`; `text` is its whole stdout. */
export function startChild(job: ChildJob) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=pitroom", "--quiet", CHILD, JSON.stringify(job)],
    stdout: "piped",
    stderr: "null",
    stdin: "null",
  }).spawn();
  return { child, text: new Response(child.stdout).text() };
}

/** True while a process with this pid exists. */
export function pidAlive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}
