/**
 * Notifications of background runs through the real CLI and host (`notifyCommand` writes each
 * one to a file): a crew is told once, when its last run ends, a failed run always, a quick
 * success never, and nothing at all without `"notify": true`. The rules themselves on records.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { crewWorld, task } from "./_world.ts";
import { groupNotice, QUICK_MS, runNotice } from "../../src/engine/runs/notify.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { isLocked } from "../../src/store/locks.ts";
import { statePaths } from "../../src/store/paths.ts";
import { waitFor } from "../support/temp.ts";

/** Waits until the state dir's host has ended (it exits when it has nothing left to do). */
async function hostGone(stateDir: string): Promise<void> {
  await waitFor(async () => !(await isLocked(statePaths(stateDir).host.lock)), {
    timeoutMs: 30_000,
    what: "the host to end",
  });
}

async function told(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter((l) => l !== "");
}

Deno.test("a crew notifies once at its end, a failed background run always, a quick success never", async () => {
  await using w = await crewWorld({
    notify: true,
    notifyCommand:
      `printf '%s|%s|%s|%s\\n' "$PITROOM_NOTIFY_STATE" "$PITROOM_NOTIFY_GROUP" "$PITROOM_NOTIFY_RUNS" "$PITROOM_NOTIFY_FAILED" >> "$HOME/notices.txt"`,
  });
  const notices = join(w.env.HOME!, "notices.txt");
  const tasks = [0, 1, 2].map((n) =>
    task(`t${n}`, n === 1 ? [{ exit: 1 }] : [{ tool: "read", target: "x" }, { answer: `a${n}` }])
  );
  const crew = await w.run(["crew", "-g", "trio", "--json", ...tasks]);
  assert.equal(crew.code, 0, crew.stderr);
  await w.run(["wait", "-g", "trio", "--timeout", "60"]);

  const quick = await w.run(["run", "--bg", "--json", task("quick", [{ answer: "fine" }])]);
  assert.equal(quick.code, 0, quick.stderr);
  const failing = await w.run(["run", "--bg", "--json", task("bad", [{ exit: 1 }])]);
  assert.equal(failing.code, 0, failing.stderr);
  await w.run([
    "wait",
    JSON.parse(quick.stdout).id,
    JSON.parse(failing.stdout).id,
    "--timeout",
    "60",
  ]);
  // The host sends after the record is final; it exits once idle, so everything is sent then.
  await hostGone(w.stateDir);
  assert.deepEqual((await told(notices)).sort(), ["failed|trio|3|1", "failed||1|1"].sort());
});

Deno.test("without notify nothing is sent", async () => {
  await using w = await crewWorld({
    notifyCommand: `echo told >> "$HOME/notices.txt"`,
  });
  const failing = await w.run(["run", "--bg", "--json", task("bad", [{ exit: 1 }])]);
  await w.run(["wait", JSON.parse(failing.stdout).id, "--timeout", "60"]);
  await hostGone(w.stateDir);
  assert.deepEqual(await told(join(w.env.HOME!, "notices.txt")), []);
});

function rec(over: Partial<RunRecord>): RunRecord {
  return {
    id: "20261201-120000-aaaa",
    state: "done",
    task: "the task",
    createdAt: 0,
    startedAt: 0,
    endedAt: QUICK_MS + 1,
    chain: [{ worker: "opencode" }],
    attempts: [{ worker: "codex", startedAt: 0 }],
    answer: "the answer",
    ...over,
  } as RunRecord;
}

Deno.test("the rules: long successes and every failure, a crew only when all its runs are final", () => {
  assert.equal(runNotice(rec({}))?.title, "pitroom: codex finished (20261201-120000-aaaa)");
  assert.equal(runNotice(rec({ endedAt: 1000 })), null);
  assert.equal(runNotice(rec({ endedAt: 1000, state: "problem", message: "boom" }))?.body, "boom");
  const a = rec({ id: "a", group: "g", endedAt: 500 });
  const b = rec({ id: "b", group: "g", endedAt: 900 });
  assert.equal(groupNotice("g", [a, b]), null, "a quick crew that all succeeded");
  assert.equal(groupNotice("g", [a, { ...b, state: "running" } as RunRecord]), null);
  assert.deepEqual(groupNotice("g", [a, { ...b, state: "problem" } as RunRecord])?.failed, 1);
  assert.equal(groupNotice("g", [a, { ...b, endedAt: QUICK_MS + 5 }])?.state, "ok");
});
