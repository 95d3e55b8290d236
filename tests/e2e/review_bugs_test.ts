/**
 * The planted-bug review benchmark (benchmarks/review-bugs/) against scripted reviewers: a local
 * repository stands in for the pinned public one, and each case's reviewer scenario is written to
 * land a known score, so the planting, the `pitroom review` call and the scoring are all tested.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { plant } from "../../benchmarks/review-bugs/_plant.ts";
import { score } from "../../benchmarks/review-bugs/_score.ts";
import { readTasks, renderResults, runBenchmark } from "../../benchmarks/review-bugs/run.ts";
import { startModelServer } from "../support/model_server/fixture.ts";
import { moduleCacheEnv } from "../support/pitroom.ts";
import { git, tempDir, tempRepo } from "../support/temp.ts";

const DAYS = `export function isWeekend(day) {
  if (day < 0 || day > 6) {
    throw new RangeError("day is 0 to 6");
  }
  return day === 0 || day === 6;
}

export function clamp(value, low, high) {
  if (low > high) {
    return NaN;
  }
  return Math.min(high, Math.max(low, value));
}
`;

const verdict = (findings: string) =>
  `SPEC: PASS\nQUALITY: ${findings ? "NEEDS-FIXES" : "APPROVED"}\nFINDINGS:\n${
    findings || "- none"
  }\nCANNOT VERIFY:\n- none`;

const SCENARIOS = {
  // Names the planted line: a find and an exact one.
  inverted: {
    turns: [{ answer: verdict("- [Critical] lib/days.js:9 — the check is inverted") }],
  },
  // Four lines off: a find, not exact.
  swapped: {
    turns: [{ answer: verdict("- [Important] lib/days.js:1 — isWeekend is never true") }],
  },
  // No verdict lines: a failed review (exit 1), never a find.
  flipped: { turns: [{ answer: "The return on lib/days.js:10 is wrong." }] },
  // A serious finding on a change that alters nothing: a false alarm.
  "clean-noisy": {
    turns: [{ answer: verdict("- [Important] lib/days.js:2 — the range check looks wrong") }],
  },
};

Deno.test("plant() changes the one occurrence and names its line; refuses ambiguity", () => {
  const c = {
    name: "x",
    kind: "inverted-check" as const,
    file: "f",
    find: "low > high",
    replace: "low < high",
  };
  assert.equal(plant(DAYS, c).line, 9);
  assert.match(plant(DAYS, c).text, /if \(low < high\)/);
  assert.throws(() => plant(DAYS, { ...c, find: "missing" }), /is not in f/);
  assert.throws(() => plant(DAYS, { ...c, find: "day" }), /more than once/);
});

Deno.test("score() counts finds within 5 lines, exact within 3, the identifier, false alarms", () => {
  const target = { file: "lib/days.js", line: 9, identifier: "clamp" };
  const f = (severity: "Critical" | "Important" | "Minor", line: number, text = "x") => ({
    severity,
    file: "lib/days.js",
    line,
    text,
  });
  assert.deepEqual(score({ complete: true, findings: [f("Critical", 12)] }, target), {
    find: true,
    exact: true,
    falseAlarm: false,
    failed: false,
  });
  assert.equal(score({ complete: true, findings: [f("Important", 14)] }, target).exact, false);
  assert.equal(score({ complete: true, findings: [f("Important", 14)] }, target).find, true);
  assert.equal(score({ complete: true, findings: [f("Important", 15)] }, target).find, false);
  assert.equal(score({ complete: true, findings: [f("Minor", 9)] }, target).find, false);
  assert.equal(
    score({ complete: true, findings: [{ severity: "Important", text: "clamp() lies" }] }, target)
      .find,
    true,
  );
  assert.equal(score({ complete: false, findings: [f("Critical", 9)] }, target).find, false);
  assert.equal(score({ complete: true, findings: [f("Important", 1)] }, null).falseAlarm, true);
  assert.equal(score({ complete: true, findings: [f("Minor", 1)] }, null).falseAlarm, false);
});

Deno.test("the shipped task file parses and pins a commit", async () => {
  const tasks = await readTasks(
    new URL("../../benchmarks/review-bugs/tasks", import.meta.url).pathname,
  );
  assert.ok(Object.keys(tasks).length > 0);
  for (const t of Object.values(tasks)) {
    assert.match(t.commit, /^[0-9a-f]{40}$/);
    assert.ok(t.cases.some((c) => c.kind === "clean"));
  }
});

Deno.test("the review-bugs benchmark plants, commits `tidy`, reviews and scores", async () => {
  await using server = await startModelServer({ scenarios: SCENARIOS });
  await using repo = await tempRepo({ "lib/days.js": DAYS, "README.md": "# days\n" });
  await using work = await tempDir("review-bugs-work-");
  const commit = (await git(repo.path, "rev-parse", "HEAD")).trim();
  const configPath = join(work.path, "config.json");
  await Deno.writeTextFile(configPath, "{}");
  const file = "lib/days.js";
  const out = await runBenchmark({
    tasks: {
      days: {
        repo: "unused: --repo is given",
        commit,
        cases: [
          {
            name: "inverted",
            kind: "inverted-check",
            file,
            find: "low > high",
            replace: "low < high",
          },
          {
            name: "swapped",
            kind: "swapped-and-or",
            file,
            find: "day === 0 || day === 6",
            replace: "day === 0 && day === 6",
          },
          {
            name: "flipped",
            kind: "flipped-return",
            file,
            find: "return NaN;",
            replace: "return high;",
          },
          {
            name: "clean-noisy",
            kind: "clean",
            file,
            find: "export function clamp",
            replace: "\nexport function clamp",
          },
        ],
      },
    },
    repo: repo.path,
    workDir: work.path,
    env: {
      ...Deno.env.toObject(),
      ...moduleCacheEnv(),
      ...server.env,
      NO_COLOR: "1",
      PITROOM_STATE_DIR: join(work.path, "state"),
      PITROOM_CONFIG: configPath,
    },
    reviewArgs: (c) => ["-W", "codex", "-m", `fake/${c.name}`, "-t", "60s"],
  });
  assert.deepEqual(
    out.results.map((r) => [r.case, r.exit, r.find, r.exact, r.falseAlarm]),
    [
      ["inverted", 0, true, true, false],
      ["swapped", 0, true, false, false],
      ["flipped", 1, false, false, false],
      ["clean-noisy", 0, false, false, true],
    ],
  );
  assert.deepEqual(out.totals, {
    bugs: 3,
    finds: 2,
    exact: 1,
    clean: 1,
    falseAlarms: 1,
    failed: 1,
  });
  assert.match(renderResults(out), /finds 2\/3, exact 1\/3, false alarms 1\/1, failed reviews 1/);
  // The commit under review is a bare "tidy" on top of the pinned one.
  const checkout = join(work.path, "days-inverted");
  assert.equal((await git(checkout, "log", "-1", "--format=%s")).trim(), "tidy");
  assert.equal((await git(checkout, "rev-parse", "HEAD~1")).trim(), commit);
});
