/**
 * Kills through the real CLI (`src/cli/main.ts` under `deno run -P=pitroom`, with the fake
 * worker of `tests/crew/_fake_pitroom.ts`): SIGKILL of the background host, and SIGINT or
 * SIGTERM of a foreground `pitroom run`, leave no process of the run alive (a worker shell
 * command that calls `setsid` and one that runs `nohup ... &` included), checked against the
 * process table; the foreground run is recorded as stopped, and the tree is as the worker left
 * it and revertible.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakePitroomArgv, task } from "../crew/_world.ts";
import { moduleCacheEnv } from "../support/pitroom.ts";
import { git, tempDir, tempRepo, waitFor } from "../support/temp.ts";
import { marker, processesWith, sleepers } from "./_world.ts";

/** A repository, a state dir and a config that lets the worker write its marks folder. */
async function cliWorld() {
  const root = await tempDir("pitroom-sbx-cli-kill-");
  const marks = join(root.path, "marks");
  await Deno.mkdir(marks);
  const repo = await tempRepo({ "a.txt": "one\n" });
  const config = join(root.path, "config.json");
  await Deno.writeTextFile(
    config,
    JSON.stringify({ sandbox: { mode: "auto", writable: [marks] } }),
  );
  const state = join(root.path, "state");
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: root.path,
    NO_COLOR: "1",
    PITROOM_STATE_DIR: state,
    PITROOM_CONFIG: config,
  };
  const spawn = (args: string[], stdout: "piped" | "null" = "piped") => {
    const [cmd, ...rest] = fakePitroomArgv();
    return new Deno.Command(cmd!, {
      args: [...rest, ...args],
      cwd: repo.path,
      env: { ...moduleCacheEnv(), ...env },
      clearEnv: true,
      stdin: "null",
      stdout,
      stderr: "piped",
    }).spawn();
  };
  return {
    repo: repo.path,
    marks,
    state,
    spawn,
    async pitroom(args: string[]) {
      const out = await spawn(args).output();
      const dec = new TextDecoder();
      return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
    },
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await new Deno.Command("chmod", { args: ["-R", "u+w", root.path] }).output();
      await root[Symbol.asyncDispose]();
    },
  };
}

/** A worker that edits the tree, leaves a setsid and a nohup daemon behind, then hangs. */
function daemonTask(repo: string, marks: string, tag: string): string {
  const started = (name: string) => `touch '${join(marks, name)}'; exec sleep ${tag}`;
  return task("leave daemons", [
    { tool: "write", target: "a.txt" },
    { writeFile: join(repo, "a.txt"), content: "two\n" },
    { tool: "write", target: "new.txt" },
    { writeFile: join(repo, "new.txt"), content: "made\n" },
    {
      run: `setsid sh -c "${started("setsid.started")}" </dev/null >/dev/null 2>&1 & ` +
        `nohup sh -c "${started("nohup.started")}" </dev/null >/dev/null 2>&1 &`,
    },
    { waitFile: join(marks, "setsid.started") },
    { waitFile: join(marks, "nohup.started") },
    { writeFile: join(marks, "working"), content: "" },
    { hang: true },
  ]);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function noneLeft(tag: string, timeoutMs: number): Promise<void> {
  await waitFor(async () => (await processesWith(tag)).length === 0, {
    timeoutMs,
    what: `every process of the run to end: ${(await processesWith(tag)).join("; ")}`,
  });
}

Deno.test("SIGKILL of the background host ends its sandboxed workers and their daemons", async () => {
  await using w = await cliWorld();
  const tag = marker();
  const started = await w.pitroom([
    "run",
    "-w",
    "--bg",
    "--json",
    daemonTask(w.repo, w.marks, tag),
  ]);
  assert.equal(started.code, 0, started.stderr);
  await waitFor(() => exists(join(w.marks, "working")), {
    timeoutMs: 30_000,
    what: "the worker to start its daemons",
  });
  // A daemon touches its mark just before it execs `sleep`: wait for both sleeps.
  await waitFor(async () => (await sleepers(tag)).length === 2, {
    timeoutMs: 10_000,
    what: "both daemons to sleep",
  });
  const host = Number((await Deno.readTextFile(join(w.state, "host", "pid"))).trim());
  Deno.kill(host, "SIGKILL");
  await noneLeft(tag, 2000);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`${signal} of a foreground pitroom run: nothing left, stopped, tree revertible`, async () => {
    await using w = await cliWorld();
    const tag = marker();
    const child = w.spawn(["run", "-w", "--json", daemonTask(w.repo, w.marks, tag)]);
    const output = child.output();
    await waitFor(() => exists(join(w.marks, "working")), {
      timeoutMs: 30_000,
      what: "the worker to start its daemons",
    });
    // A daemon touches its mark just before it execs `sleep`: wait for both sleeps.
    await waitFor(async () => (await sleepers(tag)).length === 2, {
      timeoutMs: 10_000,
      what: "both daemons to sleep",
    });
    child.kill(signal);
    const out = await output;
    await noneLeft(tag, 2000);
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.equal(report.outcome, "stopped", new TextDecoder().decode(out.stderr));
    assert.equal(report.attempts[0]?.sandbox, "bwrap");
    assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "two\n");
    assert.equal(await Deno.readTextFile(join(w.repo, "new.txt")), "made\n");

    const reverted = await w.pitroom(["revert", report.id]);
    assert.equal(reverted.code, 0, reverted.stderr);
    assert.equal(await Deno.readTextFile(join(w.repo, "a.txt")), "one\n");
    assert.equal(await exists(join(w.repo, "new.txt")), false);
    assert.equal(await git(w.repo, "status", "--porcelain"), "");
  });
}
