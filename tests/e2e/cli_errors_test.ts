/**
 * The real program's answers to bad input: one line, one hint, a documented exit code, no stack.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/commands.ts";
import { pitroom } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { exists } from "../../src/sys/fs.ts";

async function inTemp(args: string[], options: { stdin?: string } = {}) {
  await using dir = await tempDir();
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: dir.path,
    PITROOM_STATE_DIR: join(dir.path, "state"),
    PITROOM_CONFIG: join(dir.path, "config.json"),
  };
  return await pitroom(args, { env, cwd: dir.path, ...options });
}

function oneLineError(stderr: string): void {
  const lines = stderr.trimEnd().split("\n");
  assert.ok(lines.length <= 2, `expected an error line and at most a hint, got:\n${stderr}`);
  assert.match(lines[0] ?? "", /^pitroom: /);
  if (lines[1] !== undefined) assert.match(lines[1], /^hint: /);
  assert.doesNotMatch(stderr, /\n\s+at /);
}

Deno.test("every visible command answers --help with its usage line and exit 0", async () => {
  for (const def of COMMANDS.filter((c) => !c.hidden)) {
    const r = await inTemp([def.name, "--help"]);
    assert.equal(r.code, 0, def.name);
    assert.match(r.stdout, new RegExp(`^Usage: pitroom ${def.name}\\b`, "m"), def.name);
  }
});

Deno.test("--version prints the version", async () => {
  const r = await inTemp(["--version"]);
  assert.equal(r.code, 0);
  assert.match(
    r.stdout,
    /^pitroom \d+\.\d+\.\d+ \((source|[0-9a-f]{7,}(-dirty)?, built \d{4}-\d\d-\d\d)\)\n$/,
  );
});

Deno.test("bad input is one line, a hint and exit 2", async () => {
  for (
    const [args, message] of [
      [["statsu"], /Unknown command "statsu"/],
      [["run"], /No task given/],
      [["run", "-r", "-w", "x"], /Choose one mode/],
      [["run", "-d", "/nonexistent/dir", "x"], /Directory "\/nonexistent\/dir" does not exist/],
      [["run", "-W", "robot", "x"], /Unknown worker "robot"/],
      [["run", "--tier", "gold", "x"], /Unknown tier "gold"/],
      [["run", "-t", "soon", "x"], /Invalid --timeout "soon"/],
      [["show", "nope"], /No run "nope"/],
      [["wait"], /Nothing to wait for/],
      [["stop"], /Name the run to stop/],
      [["revert"], /needs RUN/],
    ] as const
  ) {
    const r = await inTemp([...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    oneLineError(r.stderr);
  }
});

Deno.test("a write run outside a git repository is refused with exit 3 and a hint", async () => {
  const r = await inTemp(["run", "-w", "change something"]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /is not in a git repository/);
  assert.match(r.stderr, /hint: run `git init` there first/);
  oneLineError(r.stderr);
});

Deno.test("an effort for a worker that is not installed is refused with exit 3 and a hint", async () => {
  // codex reads its effort levels from the CLI: a PATH without it used to crash with a log.
  await using dir = await tempDir();
  const r = await pitroom(["run", "-W", "codex", "--effort", "high", "x"], {
    env: {
      PATH: "/usr/bin:/bin",
      HOME: dir.path,
      PITROOM_STATE_DIR: join(dir.path, "state"),
      PITROOM_CONFIG: join(dir.path, "config.json"),
    },
    cwd: dir.path,
  });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /Worker "codex" is not installed: its effort levels cannot be checked/);
  assert.match(r.stderr, /hint: see which workers are installed with `pitroom doctor`/);
  oneLineError(r.stderr);
  assert.equal(await exists(join(dir.path, "state", "logs")), false, "a crash log was written");
});

Deno.test("a task read from stdin with `-` must not be empty", async () => {
  const r = await inTemp(["run", "-"], { stdin: "   \n" });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /No task given/);
});
