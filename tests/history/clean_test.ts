import assert from "node:assert/strict";
import { cleanCommand } from "../../src/cli/clean.ts";
import { tryLock } from "../../src/store/locks.ts";
import { statePaths } from "../../src/store/paths.ts";
import { readRecord, writeRecord } from "../../src/store/runs.ts";
import { pitroom } from "../support/pitroom.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";
import { writeFakeRun } from "./_fixtures.ts";

const DAY = 86_400_000;
const PATCH = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";

async function setup() {
  const state = await tempDir("pitroom-clean-");
  const now = Date.now();
  const old = now - 20 * DAY;
  const copy = { copyRoot: `${state.path}/copies/x`, links: [] };
  const runs = {
    old: await writeFakeRun(state.path, {
      task: "Rename the retry helper",
      answer: "Renamed it to backoff()",
      mode: "write",
      endedAt: old,
      tools: [{ kind: "edit", target: "src/retry.ts" }],
      patch: PATCH,
    }),
    recent: await writeFakeRun(state.path, { task: "recent", endedAt: now - 2 * DAY }),
    unapplied: await writeFakeRun(state.path, {
      task: "isolated, never applied",
      mode: "isolate",
      endedAt: old + 1000,
      patch: PATCH,
      isolation: copy,
    }),
    discarded: await writeFakeRun(state.path, {
      task: "isolated, copy discarded, patch not applied",
      mode: "isolate",
      endedAt: old + 2000,
      patch: PATCH,
      isolation: { ...copy, discarded: { at: old + 3000 } },
    }),
    applied: await writeFakeRun(state.path, {
      task: "isolated and applied",
      mode: "isolate",
      endedAt: old + 4000,
      patch: PATCH,
      isolation: { ...copy, applied: { at: old + 5000, files: ["a.txt"] } },
    }),
    running: await writeFakeRun(state.path, { task: "still running", endedAt: old + 6000 }),
    finishing: await writeFakeRun(state.path, {
      task: "final, supervisor finishing",
      endedAt: old + 7000,
    }),
  };
  // A live run: its record says running and its supervisor holds the lock.
  const paths = statePaths(state.path);
  const running = (await readRecord(paths, runs.running.id))!;
  running.state = "running";
  delete running.endedAt;
  running.supervised = true;
  await writeRecord(paths, running);
  const locks = [
    (await tryLock(paths.run(runs.running.id).supervisorLock))!,
    (await tryLock(paths.run(runs.finishing.id).supervisorLock))!,
  ];
  return {
    sys: testSys({ stateDir: state.path }),
    state: state.path,
    paths,
    runs,
    async [Symbol.asyncDispose]() {
      for (const l of locks) l.release();
      await state[Symbol.asyncDispose]();
    },
  };
}

Deno.test("clean without --yes lists old finished runs and removes nothing", async () => {
  await using t = await setup();
  await cleanCommand({ sys: t.sys, flags: { days: 14, json: true }, args: [] });
  const plan = JSON.parse(t.sys.stdoutText());
  assert.equal(plan.dryRun, true);
  assert.deepEqual(plan.remove.map((r: { id: string }) => r.id), [
    t.runs.old.id,
    t.runs.applied.id,
  ]);
  assert.deepEqual(plan.keep, [
    { id: t.runs.unapplied.id, reason: "unapplied-patch" },
    { id: t.runs.discarded.id, reason: "unapplied-patch" },
    { id: t.runs.running.id, reason: "live" },
    { id: t.runs.finishing.id, reason: "live" },
  ]);
  for (const run of Object.values(t.runs)) {
    assert.ok((await readRecord(t.paths, run.id)) !== null, `${run.id} is still there`);
  }
  const text = testSys({ stateDir: t.state });
  await cleanCommand({ sys: text, flags: { days: 14 }, args: [] });
  assert.match(text.stdoutText(), /^Would remove 2 run folder\(s\) that ended over 14 days ago/);
  assert.match(text.stdoutText(), /isolate patch not applied/);
  // A discarded copy's hint says what will remove it, not "apply or discard it" again.
  const discarded = text.stdoutText().split("\n").find((l) => l.includes(t.runs.discarded.id))!;
  assert.match(discarded, /copy discarded, patch not applied: .*`pitroom apply \S+` applies it/);
  assert.doesNotMatch(discarded, /pitroom discard/);
  assert.match(text.stdoutText(), /pitroom clean --yes/);
});

Deno.test("clean leaves a run whose run.json is damaged, names it, and then removes no copy", async () => {
  await using t = await setup();
  // The unapplied isolate run's record is damaged: nothing says it still uses copies/x.
  const record = await Deno.readTextFile(t.paths.run(t.runs.unapplied.id).record);
  await Deno.writeTextFile(t.paths.run(t.runs.unapplied.id).record, record.slice(0, 80));
  await Deno.mkdir(`${t.state}/copies/x`, { recursive: true });
  await Deno.mkdir(`${t.state}/copies/20250101-000000-dead`, { recursive: true });
  await cleanCommand({ sys: t.sys, flags: { days: 14 }, args: [] });
  const listed = t.sys.stdoutText().split("\n").find((l) => l.includes(t.runs.unapplied.id));
  assert.match(listed ?? "", /its run\.json is damaged: left for you to look at/);
  const yes = testSys({ stateDir: t.state });
  await cleanCommand({ sys: yes, flags: { days: 14, yes: true, json: true }, args: [] });
  const result = JSON.parse(yes.stdoutText());
  assert.equal(result.removed.some((r: { id: string }) => r.id === t.runs.unapplied.id), false);
  assert.deepEqual(result.copiesRemoved ?? [], []);
  assert.ok((await Deno.stat(`${t.state}/copies/x`)).isDirectory);
  assert.ok((await Deno.stat(t.paths.run(t.runs.unapplied.id).patch)).isFile);
});

Deno.test("clean --yes removes old folders but never a live run nor an unapplied isolate patch", async () => {
  await using t = await setup();
  // The copy the kept runs share stays; a copy no remaining run refers to goes.
  await Deno.mkdir(`${t.state}/copies/x`, { recursive: true });
  await Deno.mkdir(`${t.state}/copies/20250101-000000-dead`, { recursive: true });
  await cleanCommand({ sys: t.sys, flags: { days: 14, yes: true, json: true }, args: [] });
  const result = JSON.parse(t.sys.stdoutText());
  assert.deepEqual(result.copiesRemoved, ["20250101-000000-dead"]);
  assert.ok((await Deno.stat(`${t.state}/copies/x`)).isDirectory);
  assert.deepEqual(result.removed.map((r: { id: string }) => r.id), [
    t.runs.old.id,
    t.runs.applied.id,
  ]);
  assert.equal(await readRecord(t.paths, t.runs.old.id), null);
  assert.equal(await readRecord(t.paths, t.runs.applied.id), null);
  for (const kept of [t.runs.recent, t.runs.unapplied, t.runs.discarded, t.runs.finishing]) {
    assert.ok((await readRecord(t.paths, kept.id)) !== null);
  }
  assert.equal((await readRecord(t.paths, t.runs.running.id))?.state, "running");
  assert.equal(await Deno.readTextFile(t.paths.run(t.runs.unapplied.id).patch), PATCH);
  assert.equal(await Deno.readTextFile(t.paths.run(t.runs.discarded.id).patch), PATCH);
});

Deno.test("show prints a cleaned run's report, steps and patch from the history", async () => {
  await using t = await setup();
  await cleanCommand({ sys: t.sys, flags: { days: 14, yes: true }, args: [] });
  const env = { PITROOM_STATE_DIR: t.state, HOME: t.state, PATH: Deno.env.get("PATH") ?? "" };
  const id = t.runs.old.id;
  // A part of its id means a run of the folder it is typed in; the full id names it anywhere.
  const part = await pitroom(["show", id.slice(-4)], { env, cwd: t.state });
  assert.equal(part.code, 2);
  assert.match(part.stderr, new RegExp(`it names run "${id}" of "/tmp/project"`));
  const report = await pitroom(["show", id], { env, cwd: t.state });
  assert.equal(report.code, 0, report.stderr);
  assert.match(report.stdout, new RegExp(`^run ${id} · done · write`));
  assert.match(report.stdout, /answer:\n {2}Renamed it to backoff\(\)/);
  assert.match(report.stdout, /steps:\n {2}edit +src\/retry\.ts/);
  assert.match(report.stderr, /folder was cleaned/);
  const patch = await pitroom(["show", id, "--patch"], { env, cwd: t.state });
  assert.equal(patch.code, 0, patch.stderr);
  assert.equal(patch.stdout, PATCH);
  const missing = await pitroom(["show", "zzzz"], { env, cwd: t.state });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /No run "zzzz"/);
});
