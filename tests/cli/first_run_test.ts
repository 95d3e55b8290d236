/**
 * The first run: plain `pitroom` without a config names the installed workers and the commands
 * to start with; with a config it is the overview help. And `doctor`'s sections and next steps.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroom } from "../support/pitroom.ts";
import { WORKERS_PATH } from "./_setup.ts";
import { tempDir } from "../support/temp.ts";
import { welcome } from "../../src/cli/first_run.ts";
import { nextCommands, renderChecks } from "../../src/cli/doctor.ts";
import type { Check, WorkerStatus } from "../../src/engine/mod.ts";

function env(dir: string, path: string) {
  return {
    HOME: dir,
    PATH: path,
    PITROOM_STATE_DIR: join(dir, "state"),
    PITROOM_CONFIG: join(dir, "config.json"),
  };
}

Deno.test("plain `pitroom` with no config names the installed workers and the next commands", async () => {
  await using dir = await tempDir();
  const r = await pitroom([], { env: env(dir.path, WORKERS_PATH), cwd: dir.path });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Workers found: .*opencode \d/m);
  assert.match(r.stdout, /^ {2}pitroom init --yes /m);
  assert.match(r.stdout, /^ {2}pitroom install --mcp /m);

  await Deno.writeTextFile(join(dir.path, "config.json"), "{}");
  const again = await pitroom([], {
    env: env(dir.path, WORKERS_PATH),
    cwd: dir.path,
  });
  assert.equal(again.code, 0);
  assert.doesNotMatch(again.stdout, /Workers found/);
  assert.match(again.stdout, /^Usage: pitroom <command>/m);
});

Deno.test("the welcome without any worker says which one to install", () => {
  const none: WorkerStatus[] = [{
    worker: "opencode",
    installed: null,
    path: null,
    tested: { pinned: "1.0.0", min: "1.0.0", max: "1.0.0", relies: "its events" },
    fit: null,
    installHint: "npm i -g opencode-ai",
  }];
  const text = welcome("0.1.0", none);
  assert.match(text, /No worker CLI is installed yet/);
  assert.match(text, /^ {2}npm i -g opencode-ai$/m);
});

Deno.test("doctor shows its checks in sections and ends with the commands that fix them", () => {
  const checks: Check[] = [
    {
      check: "config",
      section: "setup",
      status: "ok",
      message: "no config file at /x: defaults apply",
      hint: "pitroom init",
    },
    { check: "worker", section: "workers", worker: "opencode", status: "ok", message: "installed" },
    {
      check: "fallback",
      section: "chain",
      status: "warn",
      message: "no fallback",
      hint: "pitroom init --fallback codex,claude",
    },
    { check: "use", section: "use", status: "skip", message: "no run in the last 30 days" },
  ];
  const text = renderChecks(checks);
  assert.deepEqual(
    text.split("\n").filter((l) => /^[A-Z]/.test(l)),
    ["Setup", "Workers", "Worker chain and tiers", "Use so far"],
  );
  assert.deepEqual(nextCommands(checks), [
    "pitroom init --yes",
    "pitroom init --fallback codex,claude",
    'pitroom run "Where is the entry point of this project?"',
  ]);
});
