/**
 * The dashboard's cards name the user's work, from the run's record (real runs of the engine
 * with the scripted worker, tests/ui/_kinds.ts): a review is "Review of RUN" with SPEC and
 * QUALITY badges and its findings with their `path:line`, an audit "Audit of RUN" with its
 * verdict and disputed claims, a plan task its plan and title with its status; the reviewed and
 * audited runs carry the verdicts on them; cached, applied, not-applied, discarded and reverted
 * runs each say so. History's hits carry the same cards.
 */
import assert from "node:assert/strict";
import type { HistoryResponse, RunCard, RunsResponse } from "../../../src/server/dash/api_types.ts";
import { createDashboardApp } from "../../../src/server/dash/app.ts";
import { pointOf, verdictsOf } from "../../../src/server/dash/card_kind.ts";
import type { RunReport } from "../../../src/engine/mod.ts";
import { kindsWorld, makeKindRuns } from "../../ui/_kinds.ts";
import { enter, HOST, passHeaders, PORT, testDoor } from "./_world.ts";

Deno.test("cards name runs by what they are, with their verdicts and what became of their work", async () => {
  await using w = await kindsWorld();
  const runs = await makeKindRuns(w.engine, w.repo.path);
  const door = testDoor();
  const stop = new AbortController();
  const app = createDashboardApp(w.engine, { door, port: PORT, signal: stop.signal });
  const pass = await enter(app, door);
  const get = async <T>(path: string): Promise<T> => {
    const res = await app.request(path, { headers: { host: HOST, ...passHeaders(pass) } });
    assert.equal(res.status, 200, path);
    return await res.json() as T;
  };
  const { runs: cards } = await get<RunsResponse>("/api/runs?recent=50");
  const card = (id: string): RunCard => {
    const found = cards.find((c) => c.id === id);
    assert.ok(found, `no card of ${id}`);
    return found;
  };

  const review = card(runs.review);
  assert.equal(review.kind, "review");
  assert.equal(review.title, `Review of ${runs.plan}`);
  assert.equal(review.about, runs.plan);
  assert.deepEqual(review.verdicts.map((v) => v.badges.map((b) => `${b.name} ${b.value}`)), [[
    "SPEC PASS",
    "QUALITY NEEDS-FIXES",
  ]]);
  assert.deepEqual(review.verdicts[0]!.points, [
    { severity: "Important", ref: "src/app.ts:1", text: "the export has no doc comment" },
    { severity: "Minor", ref: "README.md:1", text: "the title is terse" },
  ]);
  assert.doesNotMatch(review.title, /review one task|You review/i);

  const plan = card(runs.plan);
  assert.equal(plan.kind, "plan");
  assert.equal(plan.title, "Plan plan.md · task 1: Fix the answer");
  // Its own status first, then the review on it.
  assert.deepEqual(plan.verdicts.map((v) => [v.kind, v.run, v.badges.map((b) => b.value)]), [
    ["status", runs.plan, ["DONE"]],
    ["review", runs.review, ["PASS", "NEEDS-FIXES"]],
  ]);
  assert.equal(plan.disposition, "not-applied");

  const audit = card(runs.audit);
  assert.equal(audit.kind, "audit");
  assert.equal(audit.title, `Audit of ${runs.read}`);
  assert.deepEqual(audit.verdicts.map((v) => [v.kind, v.badges]), [[
    "audit",
    [{ name: "AUDIT", value: "PARTLY", tone: "warn" }],
  ]]);
  assert.deepEqual(audit.verdicts[0]!.points, [{
    severity: null,
    ref: "src/app.ts:1",
    text: "the answer is 41 there, the claim that it is exported as 42 is wrong",
  }]);
  const read = card(runs.read);
  assert.equal(read.title, "Where is the answer? [markdown]");
  assert.deepEqual(read.verdicts.map((v) => [v.kind, v.run, v.badges.map((b) => b.value)]), [
    ["audit", runs.audit, ["PARTLY"]],
  ]);

  assert.equal(card(runs.cached).disposition, "cached");
  assert.equal(card(runs.cachedFrom).disposition, null);
  assert.equal(card(runs.applied).disposition, "applied");
  assert.equal(card(runs.discarded).disposition, "discarded");
  assert.equal(card(runs.reverted).disposition, "reverted");
  assert.equal(card(runs.dear).disposition, null);
  assert.ok(card(runs.dear).saved! < 0, "the dear run cost more than the primary model");

  // History's hits carry the same cards (a review is named as on Live).
  const history = await get<HistoryResponse>("/api/history?q=answer&limit=50");
  const hit = history.hits.find((h) => h.id === runs.plan);
  assert.equal(hit?.card?.title, "Plan plan.md · task 1: Fix the answer");
  stop.abort();
});

Deno.test("pointOf() finds a claim's path:line, and bounds what a hostile reply can make it do", () => {
  assert.deepEqual(pointOf("src/a.ts:3 — retry is not defined here"), {
    severity: null,
    ref: "src/a.ts:3",
    text: "retry is not defined here",
  });
  assert.deepEqual(pointOf("`lib/x.go:10-12`: wrong count", "Minor"), {
    severity: "Minor",
    ref: "lib/x.go:10-12",
    text: "wrong count",
  });
  assert.deepEqual(pointOf("Makefile:4 has no test target").ref, "Makefile:4");
  assert.deepEqual(pointOf("the count is 4, not 5 (see src/b.ts#L9)").ref, "src/b.ts#L9");
  // A time is not a place; a claim without a place has none.
  assert.equal(pointOf("12:30 is when it runs").ref, null);
  assert.equal(pointOf("defined once: not confirmed").ref, null);
  // A megabyte on one line: cut to a card's size (every search is on a bounded text).
  for (const claim of ["a".repeat(1_000_000), "a.".repeat(500_000), "x/".repeat(500_000) + ":1"]) {
    const point = pointOf(claim);
    assert.ok(point.text.length <= 1_000, `${point.text.length}`);
  }
});

Deno.test("verdictsOf() lists at most 100 findings of a reply that lists ten thousand", () => {
  const findings = Array.from({ length: 10_000 }, (_, i) => ({
    severity: "Minor" as const,
    text: `src/a.ts:${i} — nit ${i}`,
  }));
  const record = {
    id: "20261201-120000-aaaa",
    state: "done",
    endedAt: 1,
    review: {
      kind: "task",
      of: "20261201-110000-bbbb",
      redacted: { files: [], secrets: 0 },
      verdict: { spec: "PASS", quality: "APPROVED", findings, cannotVerify: [], complete: true },
    },
  } as unknown as RunReport;
  const [verdict] = verdictsOf(record);
  assert.equal(verdict?.points.length, 100);
  assert.deepEqual(verdict?.points[99], { severity: "Minor", ref: "src/a.ts:99", text: "nit 99" });
});
