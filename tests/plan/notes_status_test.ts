import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { notesDir } from "../../src/engine/plan/notes.ts";
import { statusOf } from "../../src/engine/plan/status.ts";
import { parsePlan } from "../../src/engine/plan/parse.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { engineWorld } from "../support/engine_world.ts";
import { tempDir, tempRepo } from "../support/temp.ts";
import { testSys } from "../support/sys.ts";
import { renderPlanStatus } from "../../src/cli/plan.ts";
import { main } from "../../src/cli/main.ts";
import { realClock } from "../../src/sys/real.ts";

const PLAN = "# P\n\n## Task 1: One\n\nx\n\n## Task 2: Two\n\n**Worker:** capable\n";

Deno.test("plan notes live in the state dir keyed by the plan's real path, read back in order", async () => {
  await using dir = await tempDir();
  const repo = join(dir.path, "repo");
  await Deno.mkdir(repo);
  await Deno.writeTextFile(join(repo, "plan.md"), PLAN);
  await Deno.symlink(join(repo, "plan.md"), join(repo, "alias.md"));
  const sys = testSys({ stateDir: join(dir.path, "state"), cwd: repo });
  const engine = createEngine(sys);
  await engine.planNote("plan.md", "Task 1: Ruling: keep it — simpler — a rename later");
  await engine.planNote("alias.md", "Task 1: complete");
  const file = join(await notesDir(sys, await Deno.realPath(join(repo, "plan.md"))), "notes.jsonl");
  assert.ok(file.startsWith(join(dir.path, "state", "plans")));
  // A torn or foreign line is skipped, not fatal.
  await Deno.writeTextFile(file, "{not json\n", { append: true });
  const s = await engine.planStatus("alias.md");
  assert.equal(s.tasks[0]!.state, "complete");
  assert.equal(s.tasks[1]!.state, "pending");
  assert.equal(s.tasks[1]!.tier, "capable");
  assert.deepEqual(s.rulings.map((r) => r.text), [
    "Task 1: Ruling: keep it — simpler — a rename later",
  ]);
  await assert.rejects(() => engine.planNote("plan.md", "Task 7: nope"), /has no Task 7/);
  await assert.rejects(() => engine.planNote("plan.md", "  "), /No note given/);
  await assert.rejects(() => engine.planStatus("missing.md"), /No plan "missing\.md"/);
  await Deno.writeTextFile(join(repo, "empty.md"), "# Nothing to do\n");
  await assert.rejects(() => engine.planStatus("empty.md"), /has no tasks/);
  await assert.rejects(
    () => engine.start({ plan: "plan.md", step: 3, mode: "isolate" }),
    /has no Task 3: it has 1, 2/,
  );
  await assert.rejects(() => engine.start({ plan: "plan.md", mode: "isolate" }), /needs `step: N`/);
});

Deno.test("plan note and plan status say local times (not UTC ISO); --json keeps the epoch ms", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "plan.md"), PLAN);
  const at = new Date(2026, 10, 30, 9, 5, 7, 123).getTime();
  const clock = { ...realClock, now: () => at };
  const sysOf = () => testSys({ stateDir: join(dir.path, "state"), cwd: dir.path, clock });
  const note = sysOf();
  assert.equal(await main(["plan", "note", "plan.md", "Task 1: Ruling: keep it"], note), 0);
  assert.equal(note.stdoutText(), "noted at 2026-11-30 09:05\n");
  const status = sysOf();
  assert.equal(await main(["plan", "status", "plan.md"], status), 0);
  assert.match(status.stdoutText(), /\n {2}2026-11-30 09:05 {2}Task 1: Ruling: keep it\n/);
  assert.doesNotMatch(status.stdoutText(), /\d{2}:\d{2}:\d{2}\.\d{3}Z/);
  const json = sysOf();
  assert.equal(await main(["plan", "note", "plan.md", "Task 2: complete", "--json"], json), 0);
  assert.equal(JSON.parse(json.stdoutText()).at, at);
});

function rec(fields: Partial<RunRecord>): RunRecord {
  return {
    schemaVersion: 1,
    id: "20261201-120000-0001",
    state: "done",
    mode: "isolate",
    task: "",
    cwd: "/r",
    chain: [],
    web: false,
    timeoutMs: 1,
    createdAt: 1,
    attempts: [],
    progress: { steps: 0, tools: 0, tokens: { input: 0, output: 0, cached: 0, reasoning: 0 } },
    ...fields,
  };
}

Deno.test("statusOf() counts fix rounds after the first review and takes the last verdict", () => {
  const loaded = { path: "/p.md", plan: parsePlan(PLAN), group: "plan-p" };
  const plan = { path: "/p.md", step: 1, title: "One" };
  const verdict = (quality: "APPROVED" | "NEEDS-FIXES") => ({
    spec: "PASS" as const,
    quality,
    findings: quality === "APPROVED"
      ? []
      : [{ severity: "Important" as const, text: "x", file: "a.ts", line: 1 }],
    cannotVerify: [],
    complete: true,
  });
  const records = [
    rec({ id: "a", createdAt: 1, plan, implementer: { status: "DONE", openIssues: [] } }),
    rec({
      id: "r1",
      createdAt: 2,
      mode: "read",
      review: {
        kind: "task",
        of: "a",
        redacted: { files: [], secrets: 0 },
        verdict: verdict("NEEDS-FIXES"),
      },
    }),
    rec({ id: "b", createdAt: 3, plan, implementer: { status: "DONE", openIssues: [] } }),
    rec({
      id: "r2",
      createdAt: 4,
      mode: "read",
      state: "running",
      review: { kind: "fix", of: "b", redacted: { files: [], secrets: 0 } },
    }),
  ];
  const s = statusOf(loaded, records, []);
  const one = s.tasks[0]!;
  assert.equal(one.state, "running");
  assert.equal(one.fixRounds, 1);
  assert.deepEqual(one.runs, ["a", "b"]);
  // The review still going does not hide the verdict before it.
  assert.equal(one.lastReview?.run, "r1");
  assert.equal(one.lastReview?.quality, "NEEDS-FIXES");
  assert.equal(one.newerReview?.run, "r2");
  assert.equal(one.newerReview?.complete, false);
  const done = statusOf(loaded, records.slice(0, 3), []);
  assert.equal(done.tasks[0]!.state, "in progress");
  assert.equal(done.tasks[0]!.lastReview?.quality, "NEEDS-FIXES");
});

Deno.test("plan status keeps the last verdict when a later review attempt gave none", () => {
  const loaded = { path: "/p.md", plan: parsePlan(PLAN), group: "plan-p" };
  const plan = { path: "/p.md", step: 1, title: "One" };
  const review = (id: string, createdAt: number, verdict?: RunRecord["review"] & object) =>
    rec({
      id,
      createdAt,
      mode: "read",
      state: verdict?.verdict?.complete === false ? "problem" : "done",
      review: { kind: "task", of: "a", redacted: { files: [], secrets: 0 }, ...verdict },
    });
  const fail = {
    kind: "task" as const,
    redacted: { files: [], secrets: 0 },
    verdict: {
      spec: "FAIL" as const,
      quality: "NEEDS-FIXES" as const,
      findings: [{ severity: "Critical" as const, text: "the check is inverted" }],
      cannotVerify: [],
      complete: true,
    },
  };
  const failed = {
    kind: "task" as const,
    redacted: { files: [], secrets: 0 },
    verdict: { findings: [], cannotVerify: [], complete: false },
  };
  const records = [
    rec({ id: "a", createdAt: 1, plan, implementer: { status: "DONE", openIssues: [] } }),
    review("r1", 2, fail),
    review("r2", 3, failed),
  ];
  const row = statusOf(loaded, records, []).tasks[0]!;
  assert.equal(row.lastReview?.run, "r1");
  assert.equal(row.lastReview?.spec, "FAIL");
  assert.equal(row.lastReview?.findings.critical, 1);
  assert.equal(row.newerReview?.run, "r2");
  const text = renderPlanStatus(statusOf(loaded, records, []));
  assert.match(text, /SPEC FAIL · QUALITY NEEDS-FIXES \(1C 0I 0M\); then r2 gave no verdict/);
  // Only failed attempts: the newest is shown as it is, with nothing newer.
  const only = statusOf(loaded, [records[0]!, records[2]!], []).tasks[0]!;
  assert.equal(only.lastReview?.run, "r2");
  assert.equal(only.newerReview, undefined);
  // A verdict with one line missing still shows the line it has.
  const partial = {
    ...failed,
    verdict: { spec: "FAIL" as const, findings: [], cannotVerify: [], complete: false },
  };
  const half = statusOf(loaded, [records[0]!, review("r3", 4, partial)], []);
  assert.equal(half.tasks[0]!.lastReview?.spec, "FAIL");
  assert.match(renderPlanStatus(half), /SPEC FAIL · failed review \(no QUALITY line\)/);
});

Deno.test("a plan run takes its task's tier; an unconfigured tier falls back with a warning", async () => {
  await using t = await engineWorld(await tempRepo({ "plan.md": PLAN }), () => [{ answer: "ok" }]);
  const warnings: string[] = [];
  const run = await t.engine.run({ plan: "plan.md", step: 2, task: "notes here" }, {
    onWarning: (w) => warnings.push(w),
  });
  assert.match(warnings.join("\n"), /Tier "capable" is not configured: using the default/);
  assert.equal(run.plan?.tier, "capable");
  assert.equal(run.plan?.step, 2);
  assert.equal(run.group, "plan-plan");
  assert.match(t.backend.prompts[0]!, /Task 2 of 2/);
  assert.match(t.backend.prompts[0]!, /notes here/);
  const given = await t.engine.run({ plan: "plan.md", step: 1, worker: "codex" });
  assert.equal(given.chain[0]!.worker, "codex");
  assert.equal(given.plan?.tier, undefined);
  await assert.rejects(
    () => t.engine.run({ plan: "plan.md", step: 1, continue: "last" }),
    /`continue` keeps the earlier run's plan and step/,
  );
});
