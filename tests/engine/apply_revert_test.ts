/**
 * Apply and revert agree: a merged apply is reverted exactly, apply after revert is tracked
 * again, and an apply whose starting state was garbage-collected says so in one line.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { renderReport } from "../../src/cli/report.ts";
import { loadRecord } from "../../src/store/runs.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { RunSpec } from "../../src/workers/types.ts";
import type { FakeStep } from "../support/fake_backend.ts";
import { engineWorld } from "../support/engine_world.ts";
import { git, tempDir, tempRepo, waitFor } from "../support/temp.ts";

const LINES = Array.from({ length: 30 }, (_, i) => `line ${i}`);
const text = (lines: string[]) => lines.join("\n") + "\n";

async function setup(steps: (spec: RunSpec) => FakeStep[]) {
  const repo = await tempRepo({ "long.txt": text(LINES), "a.txt": "one\n" });
  return await engineWorld(repo, steps);
}

type World = Awaited<ReturnType<typeof setup>>;

async function run(t: World) {
  return await t.engine.run({
    task: "change things",
    mode: "isolate",
    worker: "opencode",
    timeoutMs: 30_000,
  });
}

const read = (t: World, path: string) => Deno.readTextFile(join(t.repo.path, path));

Deno.test("a patch applied with a merge is reverted exactly, keeping the user's later edit", async () => {
  await using t = await setup(() => [
    { writeFile: "long.txt", content: text([...LINES.slice(0, 29), "worker end"]) },
    { writeFile: "new.txt", content: "new\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  const mine = text(["user start", ...LINES.slice(1)]);
  await Deno.writeTextFile(join(t.repo.path, "long.txt"), mine);
  const { report } = await t.engine.apply(record.id);
  assert.deepEqual(report.merged, ["long.txt"]);
  await t.engine.revert(record.id);
  assert.equal(await read(t, "long.txt"), mine);
  await assert.rejects(Deno.stat(join(t.repo.path, "new.txt")), Deno.errors.NotFound);
});

Deno.test("apply after revert is tracked again: show says applied, and revert undoes it again", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "worker\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  await t.engine.apply(record.id);
  await t.engine.revert(record.id);
  const undone = renderReport(await loadRecord(t.paths, record.id), Date.now());
  assert.match(undone, /then undone/);
  await t.engine.apply(record.id);
  assert.equal(await read(t, "a.txt"), "worker\n");
  const latest = await loadRecord(t.paths, record.id);
  assert.equal(latest.changes?.reverted, undefined);
  const shown = renderReport(latest, Date.now());
  assert.doesNotMatch(shown, /undone/);
  assert.match(shown, /applied to your tree/);
  await t.engine.revert(record.id);
  assert.equal(await read(t, "a.txt"), "one\n");
});

Deno.test("apply of a run whose starting commit was garbage-collected says so in one line", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "worker\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  // The user rewrites the commit and prunes the old objects.
  await Deno.writeTextFile(join(t.repo.path, "a.txt"), "rewritten\n");
  await Deno.writeTextFile(join(t.repo.path, "long.txt"), "short\n");
  await git(t.repo.path, "commit", "-q", "-a", "--amend", "-m", "rewritten");
  await git(t.repo.path, "reflog", "expire", "--expire=now", "--all");
  await git(t.repo.path, "gc", "-q", "--prune=now");
  await assert.rejects(
    t.engine.apply(record.id),
    (error: Error) => {
      assert.match(
        error.message,
        /^Cannot apply run ".*": the state it started from \(commit [0-9a-f]{12}\) is gone from your repository \(garbage-collected\)/,
      );
      assert.doesNotMatch(error.message, /\n|fatal/);
      return true;
    },
  );
  // Nothing was written and no apply is left half-way.
  assert.equal(await read(t, "a.txt"), "rewritten\n");
  assert.equal((await loadRecord(t.paths, record.id)).isolation?.applying, undefined);
});

Deno.test("something in the way stops an apply before it writes anything, named; once moved, apply and revert work", async () => {
  await using t = await setup(() => [
    { writeFile: "a.txt", content: "worker\n" },
    { writeFile: "z.txt", content: "z\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  await Deno.mkdir(join(t.repo.path, "z.txt"));
  await Deno.writeTextFile(join(t.repo.path, "z.txt", "mine"), "mine\n");
  await assert.rejects(t.engine.apply(record.id), /in the way: "z.txt"/);
  assert.equal(await read(t, "a.txt"), "one\n");
  assert.equal(await read(t, "z.txt/mine"), "mine\n");
  const latest = await loadRecord(t.paths, record.id);
  assert.equal(latest.isolation?.applying, undefined);
  assert.doesNotMatch(renderReport(latest, Date.now()), /cut short/);
  await assert.rejects(t.engine.revert(record.id), /not applied/);
  // Moved aside: applied, then reverted to the tree as before the apply.
  await Deno.remove(join(t.repo.path, "z.txt"), { recursive: true });
  await t.engine.apply(record.id);
  assert.equal(await read(t, "z.txt"), "z\n");
  await t.engine.revert(record.id);
  assert.equal(await read(t, "a.txt"), "one\n");
  await assert.rejects(Deno.stat(join(t.repo.path, "z.txt")), Deno.errors.NotFound);
});

Deno.test("revert waits its turn: while a write run holds the repository, it is refused", async () => {
  await using gate = await tempDir();
  const release = join(gate.path, "go");
  await using t = await setup((spec) =>
    spec.mode === "write"
      ? [{ waitFile: release }, { answer: "wrote nothing" }]
      : [{ writeFile: "a.txt", content: "worker\n" }, { answer: "done" }]
  );
  const record = await run(t);
  await t.engine.apply(record.id);
  const writing = t.engine.run({ task: "hold the tree", mode: "write", worker: "opencode" });
  await waitFor(() => t.backend.prompts.length === 2, { timeoutMs: 10_000, what: "the writer" });
  const writer = (await t.engine.list()).find((r) => r.mode === "write")!;
  await assert.rejects(t.engine.revert(record.id), new RegExp(`${writer.id}\\) is writing`));
  assert.equal(await read(t, "a.txt"), "worker\n");
  await Deno.writeTextFile(release, "");
  assert.equal((await writing).outcome, "ok");
  await t.engine.revert(record.id);
  assert.equal(await read(t, "a.txt"), "one\n");
});

Deno.test("an applied run whose run.json is damaged is reverted all the same, keeping the user's later edit", async () => {
  await using t = await setup(() => [
    { writeFile: "long.txt", content: text([...LINES.slice(0, 29), "worker end"]) },
    { writeFile: "new.txt", content: "new\n" },
    { answer: "done" },
  ]);
  const record = await run(t);
  await t.engine.apply(record.id);
  // The user edits a file the apply wrote, and then run.json is cut short.
  const mine = text(["user start", ...LINES.slice(1, 29), "worker end"]);
  await Deno.writeTextFile(join(t.repo.path, "long.txt"), mine);
  const file = statePaths(t.sys.stateDir).run(record.id).record;
  const whole = await Deno.readTextFile(file);
  await Deno.writeTextFile(file, whole.slice(0, 40));
  const engine = t.engine;
  const damaged: string[] = [];
  const back = await engine.revert(record.id, { onDamaged: (d) => damaged.push(d.file) });
  assert.deepEqual(damaged, ["run.json"]);
  assert.deepEqual(back.changes?.files.map((f) => f.path).sort(), ["long.txt", "new.txt"]);
  assert.equal(await read(t, "long.txt"), text(["user start", ...LINES.slice(1)]));
  await assert.rejects(Deno.stat(join(t.repo.path, "new.txt")), Deno.errors.NotFound);
  await assert.rejects(engine.revert(record.id), /undone already/);
  assert.equal(await Deno.readTextFile(file), whole.slice(0, 40));
});
