/**
 * `--park` through the real CLI and host: a background run whose only worker cools down waits in
 * the host, `status` says `parked until HH:MM`, and the host resumes it when the cooldown ends,
 * with nobody calling again. The engine's cases (stop, timeout, a chain) are in
 * tests/engine/park_test.ts on a fake clock.
 */
import assert from "node:assert/strict";
import { crewWorld, task } from "./_world.ts";
import { cooldownKey, putCooldown } from "../../src/store/cooldown.ts";
import { statePaths } from "../../src/store/paths.ts";
import { waitFor } from "../support/temp.ts";

Deno.test("a parked background run is resumed by the host when its worker's cooldown ends", async () => {
  await using w = await crewWorld();
  const now = Date.now();
  // Long enough for the host to start and take the run on a loaded machine first.
  const until = now + 10_000;
  await putCooldown(statePaths(w.stateDir), {
    target: cooldownKey("opencode", undefined),
    until,
    reason: "rate_limited",
    message: "slow down",
    run: "earlier",
    since: now,
  });
  const crew = await w.run([
    "crew",
    "-g",
    "p",
    "--park",
    task("t", [{ answer: "after the wait" }]),
  ]);
  assert.equal(crew.code, 0, crew.stderr);
  let status = "";
  await waitFor(async () => {
    status = (await w.run(["status"])).stdout;
    return status.includes("parked until");
  }, { timeoutMs: 30_000, what: "status to say the run is parked" });
  const waited = await w.run(["wait", "-g", "p", "--timeout", "60", "--json"]);
  assert.equal(waited.code, 0, waited.stdout + waited.stderr);
  // `wait --json` prints the group's records.
  const [record] = JSON.parse(waited.stdout);
  assert.equal(record.outcome, "ok");
  assert.equal(record.answer, "after the wait");
  assert.equal(record.attempts.length, 1);
  assert.ok(record.attempts[0]!.startedAt >= until, "the worker started after the cooldown");
  assert.equal(record.parked, undefined);
});
