/**
 * Every kill reaches every descendant: a worker whose shell leaves a `setsid` process and a
 * `nohup ... &` behind has none of them alive after the run ends (stopped, timed out, or the
 * worker simply exiting), nor within a second of Pitroom itself being killed (-9, or Ctrl-C and
 * SIGTERM of a foreground run, which end the process the same way). Checked
 * against the process table. The control shows the same processes outliving an unsandboxed run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ChildJob } from "../support/crash_child.ts";
import { waitFor } from "../support/temp.ts";
import { marker, processesWith, sandboxWorld, sleepers } from "./_world.ts";

const CHILD = new URL("../support/crash_child.ts", import.meta.url).pathname;

/** Steps that leave two daemons behind and wait until both run. */
function daemons(marks: string, tag: string) {
  const started = (name: string) => `touch '${join(marks, name)}'; exec sleep ${tag}`;
  return [
    {
      run: `setsid sh -c "${started("setsid.started")}" </dev/null >/dev/null 2>&1 & ` +
        `nohup sh -c "${started("nohup.started")}" </dev/null >/dev/null 2>&1 &`,
    },
    { waitFile: join(marks, "setsid.started") },
    { waitFile: join(marks, "nohup.started") },
  ];
}

async function noneLeft(tag: string, timeoutMs = 1000): Promise<void> {
  await waitFor(async () => (await processesWith(tag)).length === 0, {
    timeoutMs,
    what: `every process of the run to end: ${(await processesWith(tag)).join("; ")}`,
  });
}

Deno.test("stop ends the worker and the setsid and nohup processes it started", async () => {
  await using w = await sandboxWorld();
  const tag = marker();
  const stop = new AbortController();
  const running = w.run("write", [...daemons(w.marks, tag), { hang: true }], {
    stop: stop.signal,
  });
  await waitFor(async () => (await sleepers(tag)).length === 2, {
    timeoutMs: 10_000,
    what: "both daemons",
  });
  stop.abort();
  const record = await running;
  assert.equal(record.outcome, "stopped", record.message);
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  await noneLeft(tag);
});

Deno.test("a timeout ends the worker and every process it started", async () => {
  await using w = await sandboxWorld();
  const tag = marker();
  const record = await w.run("write", [...daemons(w.marks, tag), { hang: true }], {
    timeoutMs: 4000,
  });
  assert.equal(record.outcome, "timeout", record.message);
  assert.ok(await Deno.stat(join(w.marks, "nohup.started")));
  await noneLeft(tag);
});

Deno.test("a worker that exits leaves no daemon behind", async () => {
  await using w = await sandboxWorld();
  const tag = marker();
  const record = await w.run("write", [...daemons(w.marks, tag), { answer: "done" }]);
  assert.equal(record.outcome, "ok", record.message);
  assert.ok(await Deno.stat(join(w.marks, "setsid.started")));
  await noneLeft(tag);
});

for (const signal of ["SIGKILL", "SIGTERM", "SIGINT"] as const) {
  Deno.test(`${signal} to Pitroom ends the sandboxed worker and its daemons within a second`, async () => {
    await using w = await sandboxWorld();
    const tag = marker();
    const steps = [
      ...daemons(w.marks, tag),
      { writeFile: join(w.marks, "working"), content: "" },
      { hang: true as const },
    ];
    const job: ChildJob = { stateDir: w.state, repo: w.repo, action: "run", mode: "write", steps };
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-P=pitroom", "--quiet", CHILD, JSON.stringify(job)],
      stdout: "null",
      stderr: "null",
      stdin: "null",
    }).spawn();
    await waitFor(async () => {
      try {
        await Deno.stat(join(w.marks, "working"));
        return true;
      } catch {
        return false;
      }
    }, { timeoutMs: 20_000, what: "the worker to start its daemons" });
    // A daemon touches its mark just before it execs `sleep`: wait for both sleeps.
    await waitFor(async () => (await sleepers(tag)).length === 2, {
      timeoutMs: 10_000,
      what: "both daemons to sleep",
    });
    child.kill(signal);
    await child.status;
    await noneLeft(tag, 1000);
  });
}

Deno.test("control: without the sandbox a setsid process outlives the run", async () => {
  await using w = await sandboxWorld({ sandbox: "off" });
  const tag = marker();
  const record = await w.run("write", [...daemons(w.marks, tag), { answer: "done" }]);
  assert.equal(record.outcome, "ok", record.message);
  assert.deepEqual(record.notes, [
    `The worker ran without a sandbox: "sandbox" is "off" in the config`,
  ]);
  const left = await sleepers(tag);
  for (const line of left) Deno.kill(Number(line.split(/\s+/)[0]), "SIGKILL");
  assert.ok(left.length >= 1, "the setsid process should have outlived the run");
});
