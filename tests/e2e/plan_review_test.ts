/**
 * The workflow of seed 001 end to end, exactly as its controller runs it: a plan of three tasks
 * executed by real codex implementers and reviewed by a real claude reviewer (another
 * backend), all on scripted models. Task 1: DONE, a review with an Important finding, a fix round
 * through `--continue` whose re-review sees only the fix's diff, apply, notes. Task 2: BLOCKED,
 * escalated with `--tier`. Task 3 in parallel with task 2 in its own copy (it plants a `.env`
 * and an AWS-style key, which never reach the reviewer). `plan status --json` from a fresh
 * process after each step, `apply -g` in plan order, and the final range review with the notes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/record.ts";
import type { PlanStatus } from "../../src/engine/plan/status.ts";
import { git } from "../support/temp.ts";
import { type World, world } from "./_world.ts";

const AWS_KEY = "AKIA" + "Z7QFAKEEXAMPLE42";

const PLAN = `# Answer service

Make the answer right and add two helpers.

## Spec

The answer is 42. Every export has a doc comment.

## Global Constraints

- No new dependencies.
- TypeScript only.

## Task 1: Fix the answer

**Worker:** cheap

Set \`answer\` in \`src/app.ts\` to 42.

## Task 2: Add two

**Worker:** standard

Create \`src/two.ts\` exporting \`two = 2\`.

## Task 3: Add three

**Worker:** cheap

Create \`src/three.ts\` exporting \`three = 3\`.
`;

const DONE = "\n\nSTATUS: DONE\nSUMMARY: done\nOPEN ISSUES:\n- none";
const CLEAN = "SPEC: PASS\nQUALITY: APPROVED\nFINDINGS:\n- none\nCANNOT VERIFY:\n- none";

const SCENARIOS = {
  t1: {
    turns: [
      { edit: { path: "src/app.ts", old: "41", new: "42" } },
      { answer: `Set the answer to 42 in src/app.ts:1.${DONE}` },
    ],
    followup: [
      {
        edit: {
          path: "src/app.ts",
          old: "export const answer = 42;",
          new: "/** The answer. */\nexport const answer = 42;",
        },
      },
      { answer: `Added the doc comment at src/app.ts:1.${DONE}` },
    ],
  },
  "rev-t1": {
    turns: [{
      answer:
        "SPEC: FAIL\nQUALITY: NEEDS-FIXES\nFINDINGS:\n- [Important] src/app.ts:1 — the export has no doc comment (the Spec asks for one)\nCANNOT VERIFY:\n- none",
    }],
  },
  "rev-clean": { turns: [{ answer: CLEAN }] },
  "t2-standard": {
    turns: [
      { read: "src/app.ts" },
      {
        answer:
          "I cannot tell where two belongs.\n\nSTATUS: BLOCKED\nOPEN ISSUES:\n- the module layout is unclear",
      },
    ],
  },
  capable: {
    turns: [
      { write: { path: "src/two.ts", content: "/** Two. */\nexport const two = 2;\n" } },
      { answer: `Created src/two.ts:2.${DONE}` },
    ],
  },
  t3: {
    turns: [
      {
        write: {
          path: "src/three.ts",
          content: `/** Three. */\nexport const three = 3;\nexport const keyId = "${AWS_KEY}";\n`,
        },
      },
      { write: { path: ".env", content: "DB_PASSWORD=correct-horse-battery\n" } },
      {
        answer:
          "Created src/three.ts:2.\n\nSTATUS: DONE_WITH_CONCERNS\nOPEN ISSUES:\n- the key id is a placeholder",
      },
    ],
  },
  "final-review": {
    turns: [{
      answer:
        "SPEC: PASS\nQUALITY: APPROVED\nFINDINGS:\n- [Minor] src/three.ts:3 — keyId is unused\nCANNOT VERIFY:\n- none",
    }],
  },
  read: { turns: [{ answer: "src/app.ts:1 holds the answer." }] },
  "no-verdict": { turns: [{ answer: "Looks fine to me." }] },
  remove: {
    turns: [
      { shell: "rm README.md" },
      { answer: `Removed README.md.${DONE}` },
    ],
  },
  hang: { turns: [{ hang: true }] },
};

const CONFIG = {
  worker: "codex",
  tiers: {
    cheap: "codex",
    standard: "codex:fake/t2-standard",
    capable: "codex:fake/capable",
    review: "claude",
  },
};

function json<T>(r: { code: number; stdout: string; stderr: string }, what: string): T {
  assert.equal(r.code, 0, `${what}: exit ${r.code}: ${r.stderr}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`${what} is not JSON: ${r.stdout.slice(0, 2000)} ${r.stderr}`);
  }
}

/** `plan status --json` (a fresh process each time). */
async function status(w: World): Promise<PlanStatus> {
  return json<PlanStatus>(await w.run(["plan", "status", "docs/plan.md", "--json"]), "status");
}

async function prompt(w: World, id: string): Promise<string> {
  return await Deno.readTextFile(join(w.stateDir, "runs", id, "prompt.txt"));
}

async function startBg(w: World, args: string[]): Promise<string> {
  const r = await w.run(["run", "-t", "120s", "--bg", ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

async function waitRuns(w: World, ids: string[]): Promise<RunRecord[]> {
  const r = await w.run(["wait", "--timeout", "120s", "--json", ...ids]);
  const out = JSON.parse(r.stdout) as RunRecord | RunRecord[];
  return Array.isArray(out) ? out : [out];
}

async function review(w: World, args: string[]): Promise<RunRecord> {
  const r = await w.run(["review", "-t", "120s", "--json", ...args]);
  return json<RunRecord>(r, `review ${args.join(" ")}`);
}

Deno.test("seed 001: a three-task plan runs end to end with reviews on another backend", async () => {
  await using w = await world(SCENARIOS, {
    files: {
      "src/app.ts": "export const answer = 41;\n",
      "docs/plan.md": PLAN,
      "README.md": "# app\n",
    },
    config: CONFIG,
  });
  const task = (s: PlanStatus, n: number) => s.tasks.find((t) => t.step === n)!;

  // Before anything: three pending tasks, the plan's group.
  const fresh = await status(w);
  assert.deepEqual(fresh.tasks.map((t) => [t.step, t.state, t.tier]), [
    [1, "pending", "cheap"],
    [2, "pending", "standard"],
    [3, "pending", "cheap"],
  ]);
  assert.equal(fresh.group, "plan-plan");

  // Task 1: implement (DONE).
  const run1 = json<RunRecord>(
    await w.run([
      "run",
      "-t",
      "120s",
      "--json",
      "-i",
      "--plan",
      "docs/plan.md",
      "--step",
      "1",
      "-m",
      "fake/t1",
      "Keep the export's name",
    ]),
    "run task 1",
  );
  assert.equal(run1.outcome, "ok");
  assert.equal(run1.group, "plan-plan");
  assert.deepEqual(run1.plan?.step, 1);
  assert.equal(run1.implementer?.status, "DONE");
  const brief = await prompt(w, run1.id);
  assert.match(brief, /Answer service/);
  assert.match(brief, /No new dependencies/);
  assert.match(brief, /Set `answer` in `src\/app\.ts` to 42/);
  assert.doesNotMatch(brief, /Create `src\/two\.ts`/);
  assert.match(brief, /Keep the export's name/);
  const shown = await w.run(["show", run1.id]);
  assert.match(shown.stdout, /^plan: plan\.md · Task 1: Fix the answer · STATUS DONE/);
  let s = await status(w);
  assert.equal(task(s, 1).state, "in progress");
  assert.equal(task(s, 1).implementer, "DONE");

  // Review: an Important finding, on claude (not the implementer's codex).
  const rev1 = await review(w, [run1.id, "-m", "rev-t1"]);
  assert.equal(rev1.exit, 0, rev1.message);
  assert.equal(rev1.mode, "read");
  assert.equal(rev1.attempts[0]?.worker, "claude");
  assert.equal(rev1.review?.kind, "task");
  assert.equal(rev1.review?.verdict?.spec, "FAIL");
  assert.deepEqual(rev1.review?.verdict?.findings.map((f) => [f.severity, f.file, f.line]), [
    ["Important", "src/app.ts", 1],
  ]);
  const pkg1 = await prompt(w, rev1.id);
  assert.match(pkg1, /## Brief/);
  assert.match(pkg1, /Set `answer` in `src\/app\.ts` to 42/);
  assert.match(pkg1, /## Implementer's report[\s\S]*Set the answer to 42/);
  assert.match(pkg1, /-export const answer = 41;\n\+export const answer = 42;/);
  assert.equal((await w.record(run1.id)).reviews?.[0]?.quality, "NEEDS-FIXES");
  const found = await w.run(["history", "NEEDS-FIXES", "--json"]);
  assert.equal(found.code, 0, found.stderr);
  assert.match(found.stdout, new RegExp(rev1.id), "the review is in the history");
  s = await status(w);
  assert.equal(task(s, 1).lastReview?.quality, "NEEDS-FIXES");
  assert.equal(task(s, 1).lastReview?.findings.important, 1);
  assert.equal(task(s, 1).fixRounds, 0);

  // Fix round 1: --continue in the same copy, then a re-review of the fix's diff only.
  const fix = json<RunRecord>(
    await w.run([
      "run",
      "-t",
      "120s",
      "--json",
      "--continue",
      run1.id,
      "[Important] src/app.ts:1 — the export has no doc comment",
    ]),
    "fix round",
  );
  assert.equal(fix.outcome, "ok");
  assert.equal(fix.isolation?.copyRoot, run1.isolation?.copyRoot);
  assert.equal(fix.plan?.step, 1);
  assert.equal(fix.group, "plan-plan");
  const rev2 = await review(w, [fix.id, "-m", "rev-clean"]);
  assert.equal(rev2.review?.kind, "fix");
  assert.equal(rev2.review?.previous, run1.id);
  assert.equal(rev2.review?.verdict?.quality, "APPROVED");
  const pkg2 = await prompt(w, rev2.id);
  assert.match(pkg2, /## Previous findings[\s\S]*no doc comment/);
  assert.match(pkg2, /\+\/\*\* The answer\. \*\//);
  assert.doesNotMatch(pkg2, /answer = 41/, "a fix round sees only the fix's diff");
  assert.doesNotMatch(pkg2, /## Brief/);
  s = await status(w);
  assert.equal(task(s, 1).fixRounds, 1);
  assert.equal(task(s, 1).lastReview?.quality, "APPROVED");

  // Land task 1.
  const applied = await w.run(["apply", fix.id]);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(await w.read("src/app.ts"), "/** The answer. */\nexport const answer = 42;\n");
  await git(w.repo, "add", "src/app.ts");
  await git(w.repo, "commit", "-q", "-m", "Fix the answer");
  const base = (await git(w.repo, "rev-parse", "HEAD~1")).trim();
  let noted = await w.run(["plan", "note", "docs/plan.md", "Task 1: complete (review clean)"]);
  assert.equal(noted.code, 0, noted.stderr);
  s = await status(w);
  assert.equal(task(s, 1).state, "complete");
  assert.equal(task(s, 1).applied, true);
  assert.equal(task(s, 1).lastNote, "Task 1: complete (review clean)");

  // Tasks 2 and 3 in parallel, each in its own copy.
  const [id2, id3] = [
    await startBg(w, ["-i", "--plan", "docs/plan.md", "--step", "2"]),
    await startBg(w, ["-i", "--plan", "docs/plan.md", "--step", "3", "-m", "fake/t3"]),
  ];
  const [blocked, three] = await waitRuns(w, [id2!, id3!]);
  assert.equal(blocked?.implementer?.status, "BLOCKED");
  assert.deepEqual(blocked?.implementer?.openIssues, ["the module layout is unclear"]);
  assert.equal(three?.implementer?.status, "DONE_WITH_CONCERNS");
  assert.notEqual(blocked?.isolation?.copyRoot, three?.isolation?.copyRoot);
  s = await status(w);
  assert.equal(task(s, 2).implementer, "BLOCKED");
  assert.deepEqual(task(s, 3).openIssues, ["the key id is a placeholder"]);

  // A run that changed nothing is not reviewed (exit 3); task 2 goes one tier up.
  const nothing = await w.run(["review", id2!]);
  assert.equal(nothing.code, 3, nothing.stderr);
  assert.match(nothing.stderr, /changed no files/);
  const id2b = await startBg(w, [
    "-i",
    "--plan",
    "docs/plan.md",
    "--step",
    "2",
    "--tier",
    "capable",
    "A prior worker was blocked on the layout: put it in src/two.ts",
  ]);
  noted = await w.run([
    "plan",
    "note",
    "docs/plan.md",
    "Task 2: Ruling: escalated to capable — the standard worker was blocked — a slower task",
  ]);
  assert.equal(noted.code, 0, noted.stderr);
  assert.equal((await w.run(["discard", id2!])).code, 0);

  // Task 3's review: the .env and the AWS-style key never leave the machine.
  const rev3 = await review(w, [id3!, "-m", "rev-clean"]);
  assert.deepEqual(rev3.review?.redacted, { files: [".env"], secrets: 1 });
  const pkg3 = await prompt(w, rev3.id);
  assert.doesNotMatch(pkg3, new RegExp(AWS_KEY));
  assert.doesNotMatch(pkg3, /correct-horse-battery/);
  assert.match(pkg3, /\+export const three = 3;/);
  const shown3 = await w.run(["show", rev3.id]);
  assert.match(shown3.stdout, /redacted: 2 \(1 secret file\(s\) by name: \.env; 1 secret\(s\)/);

  const [two] = await waitRuns(w, [id2b]);
  assert.equal(two?.implementer?.status, "DONE");
  assert.equal(two?.plan?.tier, "capable");
  assert.equal(two?.attempts[0]?.model, "fake/capable");
  const rev2b = await review(w, [id2b, "-m", "rev-clean"]);
  assert.equal(rev2b.review?.verdict?.complete, true);

  // apply -g PLAN: the plan's pending patches in step order (2, then 3).
  const group = json<{ applied: { id: string }[] }>(
    await w.run(["apply", "-g", "plan-plan", "--json"]),
    "apply -g",
  );
  assert.deepEqual(group.applied.map((a) => a.id), [id2b, id3]);
  await git(w.repo, "add", "-A");
  await git(w.repo, "commit", "-q", "-m", "Add two and three");
  for (const n of [2, 3]) {
    noted = await w.run(["plan", "note", "docs/plan.md", `Task ${n}: complete`]);
    assert.equal(noted.code, 0, noted.stderr);
  }
  noted = await w.run([
    "plan",
    "note",
    "docs/plan.md",
    "Task 3: minor (deferred): the key id is a placeholder [[scenario:final-review]]",
  ]);
  assert.equal(noted.code, 0, noted.stderr);

  // The final range review: capable tier, the plan, its constraints and the notes inside.
  const final = await review(w, ["--range", `${base}..HEAD`, "--plan", "docs/plan.md"]);
  assert.equal(final.review?.kind, "range");
  assert.equal(final.review?.range?.commits, 2);
  assert.equal(final.chain[0]?.model, "fake/capable");
  assert.equal(final.review?.verdict?.findings[0]?.file, "src/three.ts");
  const pkg4 = await prompt(w, final.id);
  assert.match(pkg4, /Whole-branch review/);
  assert.match(pkg4, /## Global Constraints\n\n- No new dependencies/);
  assert.match(pkg4, /Ruling: escalated to capable/);
  assert.match(pkg4, /minor \(deferred\)/);
  assert.match(pkg4, /Fix the answer\n[0-9a-f]+ Add two and three/);

  // From a fresh process, the whole picture.
  s = await status(w);
  assert.deepEqual(s.tasks.map((t) => [t.step, t.state, t.implementer, t.applied]), [
    [1, "complete", "DONE", true],
    [2, "complete", "DONE", true],
    [3, "complete", "DONE_WITH_CONCERNS", true],
  ]);
  assert.deepEqual(s.rulings.map((r) => r.text), [
    "Task 2: Ruling: escalated to capable — the standard worker was blocked — a slower task",
  ]);
  assert.equal(s.rangeReviews[0]?.run, final.id);
  const text = await w.run(["plan", "status", "docs/plan.md"]);
  assert.match(text.stdout, /rulings:\n.*Ruling: escalated to capable/);
});

Deno.test("pitroom review refuses a live run, a read run and a review (exit 3)", async () => {
  await using w = await world(SCENARIOS, { config: CONFIG });
  const read = json<RunRecord>(
    await w.run(["run", "-t", "60s", "--json", "-m", "fake/read", "Where is the answer?"]),
    "read run",
  );
  let r = await w.run(["review", read.id]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /is a read run/);
  const live = await startBg(w, ["-i", "-m", "fake/hang", "Wait forever"]);
  r = await w.run(["review", live]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /is still (queued|running)/);
  assert.equal((await w.run(["stop", live])).code, 0);
  // A review of a review: the review run is a read run, but it is refused as a review.
  const rec = await w.record(read.id);
  rec.review = { kind: "task", of: "x", redacted: { files: [], secrets: 0 } };
  await Deno.writeTextFile(join(w.stateDir, "runs", read.id, "run.json"), JSON.stringify(rec));
  r = await w.run(["review", read.id]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /is a review/);
  r = await w.run(["run", "-i", "--plan", "nope.md", "--step", "1"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /No plan "nope\.md"/);
});

Deno.test("a review without both verdict lines fails (exit 1); apply refuses conflicts and deletions", async () => {
  await using w = await world(SCENARIOS, { config: CONFIG });
  const edit = json<RunRecord>(
    await w.run(["run", "-t", "60s", "--json", "-i", "-m", "fake/t1", "Make it 42"]),
    "isolate run",
  );
  const r = await w.run(["review", "-t", "60s", "--json", edit.id, "-m", "no-verdict"]);
  assert.equal(r.code, 1, r.stderr);
  const failed = JSON.parse(r.stdout) as RunRecord;
  assert.equal(failed.state, "problem");
  assert.match(failed.message ?? "", /lacks the line SPEC: PASS\|FAIL and QUALITY/);
  assert.equal((await w.record(edit.id)).reviews?.[0]?.complete, false);
  const shown = await w.run(["show", edit.id]);
  assert.match(shown.stdout, /reviewed by .* failed review/);

  // A background review: the host parses the verdict when it ends.
  const bg = json<{ id: string; kind: string; redacted: unknown }>(
    await w.run(["review", "--bg", "--json", edit.id, "-m", "rev-clean"]),
    "review --bg",
  );
  assert.equal(bg.kind, "task");
  const [done] = await waitRuns(w, [bg.id]);
  assert.equal(done?.review?.verdict?.quality, "APPROVED");
  assert.deepEqual((await w.record(edit.id)).reviews?.map((x) => [x.run, x.complete]), [
    [failed.id, false],
    [bg.id, true],
  ]);

  // The user's tree moved on under the patch: apply refuses and writes nothing.
  await Deno.writeTextFile(join(w.repo, "src/app.ts"), "export const answer = 40;\n");
  const conflict = await w.run(["apply", edit.id]);
  assert.notEqual(conflict.code, 0);
  assert.equal(await w.read("src/app.ts"), "export const answer = 40;\n");

  const removal = json<RunRecord>(
    await w.run(["run", "-t", "60s", "--json", "-i", "-m", "fake/remove", "Drop the README"]),
    "deleting run",
  );
  const refused = await w.run(["apply", removal.id]);
  assert.equal(refused.code, 3, refused.stderr);
  assert.equal(await w.read("README.md"), "# app\n");
  assert.equal((await w.run(["apply", removal.id, "--allow-delete"])).code, 0);
});
