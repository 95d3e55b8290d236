/**
 * Bad input through the real program: one line on stderr (and at most a hint), the documented
 * exit code, nothing on stdout, and no run recorded: every check happens before a run exists.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { moduleCacheEnv, pitroom, pitroomArgv, type PitroomResult } from "../support/pitroom.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

function oneLineError(r: PitroomResult, code: number, message: RegExp, what: string): void {
  assert.equal(r.code, code, `${what}: exit ${r.code}\n${r.stdout}${r.stderr}`);
  assert.equal(r.stdout, "", `${what} printed on stdout:\n${r.stdout}`);
  const lines = r.stderr.trimEnd().split("\n");
  assert.ok(lines.length <= 2, `${what}: expected an error line and at most a hint:\n${r.stderr}`);
  assert.match(lines[0] ?? "", /^pitroom: /, what);
  if (lines[1] !== undefined) assert.match(lines[1], /^hint: /, what);
  assert.doesNotMatch(r.stderr, /\n\s+at |Uncaught/, what);
  assert.match(r.stderr, message, what);
}

async function runsIn(stateDir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(join(stateDir, "runs")))).map((e) => e.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

async function inRepo() {
  const repo = await tempRepo({ "src/app.ts": "export const a = 1;\n", ".gitignore": "deps/\n" });
  await Deno.mkdir(join(repo.path, "deps"));
  const state = await tempDir("pitroom-input-state-");
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: state.path,
    PITROOM_STATE_DIR: join(state.path, "state"),
    PITROOM_CONFIG: join(state.path, "config.json"),
  };
  return {
    repo: repo.path,
    stateDir: env.PITROOM_STATE_DIR,
    env,
    run: (args: string[], extra: Record<string, string> = {}) =>
      pitroom(args, { env: { ...env, ...extra }, cwd: repo.path }),
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

Deno.test("bad flag values are exit 2 before a run exists", async () => {
  await using w = await inRepo();
  await Deno.mkdir(join(w.repo, "tasks"));
  const cases: [string[], RegExp][] = [
    [["run", "-t", "99999h", "x"], /--timeout" takes at most 7d, got "99999h"/],
    [["run", "--bg", "-t", "8d", "x"], /--timeout" takes at most 7d/],
    [["crew", "-t", "99999h", "x", "y"], /--timeout" takes at most 7d/],
    [["wait", "--timeout", "30d", "last"], /--timeout" takes at most 7d/],
    [["watch", "--timeout", "99999h"], /--timeout" takes at most 7d/],
    [["run", "--task-file", "tasks"], /Task file "tasks" is a folder, not a file/],
    [["crew", "--task-file", "tasks"], /Task file "tasks" is a folder, not a file/],
    [["run", "--task-file", "none.md"], /Task file "none.md" does not exist/],
    [["run", "-i", "--link", "../..", "x"], /--link "\.\.\/\.\." must be a folder inside/],
    [["run", "-i", "--link", "/etc", "x"], /--link "\/etc" must be a folder inside/],
    [["run", "-i", "--link", ".git", "x"], /--link "\.git" must be a folder inside/],
    [["run", "-i", "--link", "deps,src/../..", "x"], /--link "src\/\.\.\/\.\." must be/],
    [["run", "-i", "--link", "missing", "x"], /--link "missing" is not a folder in /],
    [["run", "-i", "--link", "src/app.ts", "x"], /--link "src\/app\.ts" is not a folder in /],
    [["crew", "-i", "--link", "/etc", "x", "y"], /--link "\/etc" must be a folder inside/],
    [["ls", "-n", "0"], /--limit" needs a number of at least 1, got "0"/],
    [["ls", "-n", "-1"], /--limit" needs a number of at least 1, got "-1"/],
    [["ls", "-n", "2.5"], /--limit" needs a whole number, got "2\.5"/],
    [["ls", "-n", ""], /--limit" needs a value, got ""/],
    [["history", "-n", "0"], /--limit" needs a number of at least 1/],
    [["clean", "--days", "-3"], /--days" needs a number of at least 0/],
    [["watch", "--interval", "-1"], /--interval" needs a number of at least 0/],
    [["run", "-g", "", "x"], /--group" needs a value, got ""/],
    [["run", "-m", "", "x"], /--model" needs a value, got ""/],
    [["run", "--verify", "", "x"], /--verify" needs a value, got ""/],
    [["run", "-i", "--link", "", "x"], /--link" needs a value, got ""/],
    [["crew", "-W", "", "x", "y"], /--worker" needs a value, got ""/],
    [["show", "--full", "--patch"], /--full is for the text report/],
    [["show", "--full", "--json"], /--full is for the text report/],
    [["show", "--patch", "--events"], /Choose one of --patch and --events/],
  ];
  for (const [args, message] of cases) {
    oneLineError(await w.run(args), 2, message, args.join(" "));
  }
  assert.deepEqual(await runsIn(w.stateDir), [], "a bad flag made a run");
});

Deno.test("a state folder that is a plain file, under one, or read-only is one line and exit 3", async () => {
  await using w = await inRepo();
  const file = join(w.stateDir + "-file");
  await Deno.writeTextFile(file, "not a folder\n");
  for (const stateDir of [file, join(file, "state")]) {
    for (const args of [["ls"], ["run", "x"], ["status"], ["history", "stats"]]) {
      const r = await w.run(args, { PITROOM_STATE_DIR: stateDir });
      oneLineError(
        r,
        3,
        /^pitroom: The state folder ".*" cannot be used: (Not a directory|File exists)/,
        args[0]!,
      );
    }
  }
});

Deno.test({
  name: "a read-only state folder is one line and exit 3 (a read-only mount: root ignores modes)",
  ignore: Deno.uid() !== 0,
  async fn() {
    await using w = await inRepo();
    await Deno.mkdir(w.stateDir, { recursive: true });
    const ro = `mount --bind "$S" "$S" && mount -o remount,bind,ro "$S" && exec "$@"`;
    for (const args of [["run", "x"], ["run", "--bg", "x"]]) {
      const out = await new Deno.Command("unshare", {
        args: ["-m", "sh", "-c", ro, "sh", ...pitroomArgv(), ...args],
        cwd: w.repo,
        env: { NO_COLOR: "1", ...moduleCacheEnv(), ...w.env, S: w.stateDir },
        clearEnv: true,
        stdin: "null",
      }).output();
      const dec = new TextDecoder();
      const r = { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
      oneLineError(r, 3, /cannot be used: Read-only file system/, args.join(" "));
    }
  },
});

Deno.test("PITROOM_WORKER only chooses the worker; the recursion marker has its own name", async () => {
  await using w = await inRepo();
  const chosen = await w.run(["config", "--json"], { PITROOM_WORKER: "opencode" });
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.match(chosen.stdout, /"opencode"/);
  const listed = await w.run(["ls"], { PITROOM_WORKER: "opencode" });
  assert.equal(listed.code, 0, listed.stderr);
  const inside = await w.run(["ls"], { PITROOM_INSIDE_RUN: "20261201-000000-abcd" });
  oneLineError(inside, 3, /A worker may not start Pitroom/, "inside a run");
});
