/**
 * `wait` reports runs in the order their tasks were given (a crew's task index, then creation
 * time), not in id order: ids made in the same second end in a random suffix.
 */
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { testSys } from "../support/sys.ts";
import { tempRepo } from "../support/temp.ts";
import { finishedRun, writeRuns } from "./_setup.ts";

function given(id: string, task: string, fields: Partial<RunRecord>, cwd: string): RunRecord {
  const at = 1_764_500_000_000;
  const attempt = {
    worker: "opencode" as const,
    startedAt: at,
    endedAt: at + 1,
    outcome: "ok" as const,
  };
  return {
    ...finishedRun(id, [attempt], { input: 1, output: 1 }),
    task,
    cwd,
    group: "g",
    ...fields,
  };
}

Deno.test("wait --brief (a group or named runs) lists runs in the order the tasks were given", async () => {
  await using repo = await tempRepo({ "a.txt": "a\n" });
  const state = `${repo.path}/.git/pitroom-state`;
  const cwd = await Deno.realPath(repo.path);
  const at = 1_764_500_000_000;
  // One crew: three tasks created in the same millisecond, ids not in task order; then a
  // later single run whose id sorts first.
  await writeRuns(state, [
    given("20251130-105320-ffff", "first", { taskIndex: 0, createdAt: at }, cwd),
    given("20251130-105320-0aaa", "second", { taskIndex: 1, createdAt: at }, cwd),
    given("20251130-105320-7bbb", "third", { taskIndex: 2, createdAt: at }, cwd),
    given("20251130-105320-0000", "fourth", { createdAt: at + 5 }, cwd),
  ]);
  const ids = [
    "20251130-105320-0000",
    "20251130-105320-7bbb",
    "20251130-105320-ffff",
    "20251130-105320-0aaa",
  ];
  for (
    const argv of [["wait", "-g", "g", "--brief"], ["wait", ...ids, "--brief"], ["wait", "-g", "g"]]
  ) {
    const sys = testSys({ stateDir: state, cwd });
    assert.equal(await main(argv, sys), 0, sys.stderrText());
    const order = [...sys.stdoutText().matchAll(/20251130-105320-(ffff|0aaa|7bbb|0000)/g)].map((
      m,
    ) => m[1]);
    assert.deepEqual([...new Set(order)], ["ffff", "0aaa", "7bbb", "0000"], argv.join(" "));
  }
});
