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
  if (/(^| )--json( |$)/.test(what)) {
    // Under --json: one JSON object, {"error": {code, message, hint}}.
    assert.equal(lines.length, 1, `${what}: expected one JSON line:\n${r.stderr}`);
    const { error } = JSON.parse(lines[0]!);
    assert.equal(typeof error.code, "string", what);
    assert.match(error.message, message, what);
    return;
  }
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

/** Runs pitroom with an endless stdin; resolves with what it did and how much it was fed. */
async function endlessStdin(w: { repo: string; env: Record<string, string> }, args: string[]) {
  const [cmd, ...rest] = pitroomArgv();
  const child = new Deno.Command(cmd!, {
    args: [...rest, ...args],
    cwd: w.repo,
    env: { NO_COLOR: "1", ...moduleCacheEnv(), ...w.env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const chunk = new TextEncoder().encode("y\n".repeat(32 * 1024));
  let fed = 0;
  // Until pitroom stops reading (the pipe breaks) or, if it never does, 64 MiB.
  try {
    while (fed < 64 * 1024 * 1024) {
      await writer.write(chunk);
      fed += chunk.length;
    }
    await writer.close();
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return {
    result: { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) },
    fed,
  };
}

Deno.test("a task from an endless stdin or device: reading stops at 256 KiB, one line, exit 2", async () => {
  await using w = await inRepo();
  for (
    const args of [["run", "-"], ["run", "--task-file", "-"], ["run", "--task-file", "/dev/stdin"]]
  ) {
    const { result, fed } = await endlessStdin(w, args);
    oneLineError(
      result,
      2,
      /The task on stdin is longer than 256 KiB.*stopped reading there/,
      args.join(" "),
    );
    assert.ok(fed < 8 * 1024 * 1024, `${args.join(" ")} read ${fed} bytes before it stopped`);
  }
  for (const args of [["run", "--task-file", "/dev/zero"], ["crew", "--task-file", "/dev/zero"]]) {
    oneLineError(
      await w.run(args),
      2,
      /Task file "\/dev\/zero" \(a character device\) is longer than 256 KiB.*stopped reading there/,
      args.join(" "),
    );
  }
  // The arguments too: three of 100 KiB are one task of 300 KiB.
  const part = "x".repeat(100 * 1024);
  oneLineError(
    await w.run(["run", part, part, part]),
    2,
    /The task holds 307202 bytes, more than a task may \(256 KiB\)/,
    "run with long arguments",
  );
  assert.deepEqual(await runsIn(w.stateDir), [], "a long task made a run");
});

Deno.test("--task-file names what it was given: a FIFO is read as a stream, a huge file is refused unread", async () => {
  await using w = await inRepo();
  const fifo = join(w.repo, "tasks.fifo");
  const mkfifo = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.equal(mkfifo.code, 0);
  // A FIFO's writer: one process (the shell opens the FIFO, then becomes cat), killed once
  // pitroom has ended (it may never open the FIFO).
  const withWriter = async (content: string, args: string[]) => {
    const source = join(w.repo, "fifo-source.txt");
    await Deno.writeTextFile(source, content);
    const writer = new Deno.Command("sh", {
      args: ["-c", 'exec cat "$1" > "$0"', fifo, source],
      stderr: "null",
    }).spawn();
    const result = await w.run(args);
    try {
      writer.kill("SIGKILL");
    } catch (error) {
      if (!(error instanceof TypeError)) throw error; // it had ended
    }
    await writer.status;
    return result;
  };
  // Blank lines: the run stops at "No task given", having read them.
  const blank = await withWriter("\n\n", ["run", "--task-file", fifo]);
  oneLineError(blank, 2, /No task given/, "a FIFO of blank lines");
  const long = await withWriter("x".repeat(300 * 1024), ["run", "--task-file", fifo]);
  oneLineError(
    long,
    2,
    /Task file ".*tasks\.fifo" \(a FIFO \(named pipe\)\) is longer than 256 KiB/,
    "a long FIFO",
  );
  // Sparse: 10 GiB long, nothing on disk; read whole, it would take 10 GiB of memory.
  const huge = join(w.repo, "huge.md");
  using file = await Deno.open(huge, { write: true, create: true });
  await file.truncate(10 * 1024 * 1024 * 1024);
  oneLineError(
    await w.run(["run", "--task-file", huge]),
    2,
    /Task file ".*huge\.md" holds 10737418240 bytes, more than a task may \(256 KiB\)/,
    "a 10 GiB task file",
  );
  oneLineError(await w.run(["run", "--task-file", "/dev/null"]), 2, /No task given/, "/dev/null");
  // Attached files and plans name the kind too.
  for (
    const [args, message] of [
      [
        ["run", "-f", fifo, "x"],
        /Attached file ".*tasks\.fifo" is a FIFO \(named pipe\), not a file/,
      ],
      [
        ["run", "-f", "/dev/zero", "x"],
        /Attached file "\/dev\/zero" is a character device, not a file/,
      ],
      [
        ["run", "-i", "--plan", "/dev/zero", "--step", "1"],
        /Plan "\/dev\/zero" is a character device/,
      ],
      [
        ["run", "-i", "--plan", fifo, "--step", "1"],
        /Plan ".*tasks\.fifo" is a FIFO \(named pipe\)/,
      ],
    ] as const
  ) {
    oneLineError(await w.run([...args]), 2, message, args.join(" "));
  }
  assert.deepEqual(await runsIn(w.stateDir), [], "bad input made a run");
});

Deno.test("the status line and the hook card stop reading an endless stdin and carry on", async () => {
  await using w = await inRepo();
  const status = await endlessStdin(w, ["statusline"]);
  assert.equal(status.result.code, 0, status.result.stderr);
  assert.match(status.result.stdout, /pitroom/i);
  assert.ok(status.fed < 8 * 1024 * 1024, `the status line read ${status.fed} bytes`);
  const hook = await endlessStdin(w, ["hook-card"]);
  assert.equal(hook.result.code, 0, hook.result.stderr);
  assert.equal(hook.result.stdout, "");
  assert.ok(hook.fed < 32 * 1024 * 1024, `the hook card read ${hook.fed} bytes`);
});

Deno.test({
  name:
    "a full disk under the state folder: ls, status and show work, the rest is one line and exit 3",
  ignore: Deno.uid() !== 0,
  async fn() {
    await using w = await inRepo();
    // A state folder with a finished run and one whose supervisor died (ls marks it lost: a write).
    const made = await w.run(["run", "--task-file", "/dev/null"]);
    assert.equal(made.code, 2, made.stderr);
    const done = "20261201-000000-aaaa";
    const dead = "20261201-000001-bbbb";
    for (const [id, state] of [[done, "done"], [dead, "running"]] as const) {
      await Deno.mkdir(join(w.stateDir, "runs", id), { recursive: true });
      await Deno.writeTextFile(
        join(w.stateDir, "runs", id, "run.json"),
        JSON.stringify({
          schemaVersion: 1,
          id,
          state,
          mode: "read",
          task: `the ${state} run`,
          cwd: w.repo,
          chain: [{ worker: "opencode" }],
          web: false,
          timeoutMs: 60_000,
          createdAt: 1796000000000,
          attempts: [],
          progress: {
            steps: 0,
            tools: 0,
            tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
          },
          supervised: true,
          supervisorPid: 999_999,
          ...(state === "done"
            ? { outcome: "ok", exit: 0, endedAt: 1796000001000, answer: "42" }
            : {}),
        }),
      );
    }
    // Their markers, as the engine makes them: the newest runs, and the live one.
    for (const [dir, ids] of [["recent", [done, dead]], ["active", [dead]]] as const) {
      await Deno.mkdir(join(w.stateDir, dir), { recursive: true });
      for (const id of ids) await Deno.writeTextFile(join(w.stateDir, dir, id), "");
    }
    // In a mount namespace of its own: the state folder on a small tmpfs, filled to the brim.
    const full = `mount -t tmpfs -o size=1m tmpfs "$S" && cp -r "$FROM/." "$S/" && ` +
      `(dd if=/dev/zero of="$S/filler" bs=4k 2>/dev/null; true) && ` +
      `truncate -s "-\${FREE_KB}K" "$S/filler" && exec "$@"`;
    const inFullDisk = async (
      args: string[],
      options: { thenList?: boolean; freeKb?: number } = {},
    ) => {
      await using scratch = await tempDir("pitroom-full-");
      // With `thenList`: the command, then `ls --json` in the same namespace after a `@@@` line.
      const script = options.thenList
        ? full.replace('exec "$@"', '"$@" ' + args.join(" ") + '; echo @@@; "$@" ls --json')
        : full;
      const out = await new Deno.Command("unshare", {
        args: ["-m", "sh", "-c", script, "sh", ...pitroomArgv(), ...(options.thenList ? [] : args)],
        cwd: w.repo,
        env: {
          NO_COLOR: "1",
          ...moduleCacheEnv(),
          ...w.env,
          PITROOM_STATE_DIR: scratch.path,
          S: scratch.path,
          FROM: w.stateDir,
          FREE_KB: String(options.freeKb ?? 0),
        },
        clearEnv: true,
        stdin: "null",
      }).output();
      const dec = new TextDecoder();
      return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
    };
    for (const args of [["ls"], ["status"], ["show", done], ["show", dead]]) {
      const r = await inFullDisk(args);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /unexpected error|\n\s+at /, args.join(" "));
      if (args[0] !== "show") assert.match(r.stdout, new RegExp(`${dead}\\s+lost`), args[0]);
    }
    // A run that could not be written leaves nothing behind: ls in the same full disk after it.
    {
      // A little room: the record is written, the next write is not.
      const r = await inFullDisk(["run", "x"], { thenList: true, freeKb: 4 });
      const [, listed] = r.stdout.split("@@@\n");
      assert.deepEqual(JSON.parse(listed!).map((x: { id: string }) => x.id).sort(), [done, dead]);
      const bg = await inFullDisk(["run", "--bg", "x"], { thenList: true, freeKb: 4 });
      const [, listedBg] = bg.stdout.split("@@@\n");
      assert.deepEqual(JSON.parse(listedBg!).map((x: { id: string }) => x.id).sort(), [done, dead]);
    }
    for (const args of [["run", "x"], ["run", "--bg", "x"], ["history"], ["doctor", "--json"]]) {
      const r = await inFullDisk(args);
      if (args[0] === "doctor") {
        const state = JSON.parse(r.stdout).checks.find((c: { check: string }) =>
          c.check === "state_dir"
        );
        assert.match(state.message, /has no space left/);
        continue;
      }
      oneLineError(
        r,
        3,
        /^pitroom: No space left for the state folder ".*": .*(No space left on device|disk I\/O error|disk is full)/,
        args.join(" "),
      );
    }
  },
});
