/**
 * Who may audit: never the worker *and* model that answered. Another model of the same worker
 * may (by `-W`, `tiers.audit` or the run's own chain, which is what a sampled audit uses); the
 * same worker and model is refused with one line and exit 3; a model Pitroom cannot tell apart
 * from the answerer's (a worker's default model against a named one) is refused too.
 */
import assert from "node:assert/strict";
import { auditChain, auditorRelation } from "../../../src/engine/audit/choose.ts";
import { resolveSettings } from "../../../src/engine/core/settings.ts";
import type { Config } from "../../../src/store/config.ts";
import type { RunRecord, Target } from "../../../src/store/record.ts";
import { Exit, RefusedError } from "../../../src/sys/errors.ts";
import type { WorkerName } from "../../../src/workers/types.ts";
import { fakeBackend } from "../../support/fake_backend.ts";
import { testSys } from "../../support/sys.ts";
import { placeLiveRun } from "../../support/live_run.ts";
import { tempDir } from "../../support/temp.ts";
import { statePaths } from "../../../src/store/paths.ts";
import { writeRecord } from "../../../src/store/runs.ts";

const A = { worker: "opencode", model: "fake/a" } as const;
const B = { worker: "opencode", model: "fake/b" } as const;
const DEFAULT = { worker: "opencode" } as const;

/** A finished read run of `chain`, answered by `by` (its last attempt). */
function answered(chain: Target[], by: Target = chain[0]!): RunRecord {
  const attempts = [{ ...by, startedAt: 0 }];
  return { id: "20260101-000000-abcd", chain, attempts } as unknown as RunRecord;
}

async function choose(
  record: RunRecord,
  config: Config = {},
  worker?: string,
  installed: readonly WorkerName[] = ["opencode", "codex"],
  stateDir = "/nonexistent-state",
): Promise<Target[]> {
  const { settings } = resolveSettings({
    config,
    env: { get: () => undefined },
    flags: {},
    configPath: "/cfg/config.json",
    stateDir: "/state",
  });
  const backend = fakeBackend(() => []);
  const absent = { ...backend, detect: () => Promise.resolve(null) };
  return await auditChain(testSys({ stateDir }), record, settings, {
    ...(worker === undefined ? {} : { worker }),
    backends: (name) => installed.includes(name as WorkerName) ? backend : absent,
  });
}

async function refused(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof RefusedError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.exit, Exit.refused);
    assert.doesNotMatch(error.message, /\n/, "one line");
    assert.match(error.message, message);
    return true;
  });
}

Deno.test("auditorRelation(): another worker or another named model is other; same worker and model is same", () => {
  assert.equal(auditorRelation(A, B), "other");
  assert.equal(auditorRelation(A, { worker: "codex", model: "fake/a" }), "other");
  assert.equal(auditorRelation(A, { worker: "codex" }), "other");
  assert.equal(auditorRelation(A, A), "same");
  assert.equal(auditorRelation(DEFAULT, DEFAULT), "same");
  // The worker's default model may be the one named on the other side.
  assert.equal(auditorRelation(A, DEFAULT), "unsure");
  assert.equal(auditorRelation(DEFAULT, B), "unsure");
});

Deno.test("-W another model of the answering worker audits; -W its own model is refused (exit 3, one line)", async () => {
  const record = answered([A]);
  assert.deepEqual(await choose(record, {}, "opencode:fake/b"), [B]);
  await refused(
    choose(record, {}, "opencode:fake/a"),
    "same_auditor",
    /^opencode \(fake\/a\) cannot audit run "20260101-000000-abcd": it answered it \(opencode \(fake\/a\)\)$/,
  );
  // A chain with the answerer anywhere in it is refused, not quietly shortened.
  await refused(choose(record, {}, "codex,opencode:fake/a"), "same_auditor", /it answered it/);
});

Deno.test("-W a worker's default model against a named one: allowed when the config names it, else refused", async () => {
  const record = answered([A]);
  await refused(
    choose(record, {}, "opencode"),
    "same_auditor",
    /^opencode \(default model\) cannot audit run ".+": it was answered by opencode \(fake\/a\), and whether opencode's default model is fake\/a is not known$/,
  );
  assert.deepEqual(await choose(record, { models: { opencode: "fake/b" } }, "opencode"), [B]);
  await refused(
    choose(record, { models: { opencode: "fake/a" } }, "opencode"),
    "same_auditor",
    /it answered it/,
  );
  // An answer by the default model: a named model may be that default.
  await refused(
    choose(answered([DEFAULT]), {}, "opencode:fake/b"),
    "same_auditor",
    /answered by opencode \(default model\), and whether opencode's default model is fake\/b/,
  );
  assert.deepEqual(await choose(answered([DEFAULT]), {}, "codex"), [{ worker: "codex" }]);
});

Deno.test("tiers.audit may name another model of the answering worker, not its own", async () => {
  const record = answered([A]);
  assert.deepEqual(await choose(record, { tiers: { audit: "opencode:fake/b" } }), [B]);
  assert.deepEqual(await choose(record, { tiers: { audit: "opencode:fake/a,opencode:fake/b" } }), [
    B,
  ]);
  await refused(
    choose(record, { tiers: { audit: "opencode:fake/a" } }),
    "no_auditor",
    /^No other worker or model can audit run ".+": it was answered by opencode \(fake\/a\) and no other worker or model is configured$/,
  );
  await refused(
    choose(record, { tiers: { audit: "opencode" } }),
    "no_auditor",
    /and opencode \(default model\) may be that very model$/,
  );
});

Deno.test("without -W or a tier (a sampled audit): the other models of the run's own chain audit", async () => {
  assert.deepEqual(await choose(answered([A, B])), [B]);
  // Answered by the fallback: the first model audits it.
  assert.deepEqual(await choose(answered([A, B], B)), [A]);
  assert.deepEqual(await choose(answered([A, { worker: "codex" }, B])), [{ worker: "codex" }, B]);
  await refused(choose(answered([A])), "no_auditor", /no other worker or model is configured/);
  await refused(choose(answered([DEFAULT])), "no_auditor", /no other worker or model/);
  // Another model, of a worker that is not installed.
  await refused(
    choose(answered([A, { worker: "codex" }]), {}, undefined, ["opencode"]),
    "no_auditor",
    /and no other one is installed$/,
  );
});

Deno.test("an answer from the cache was given by the earlier run's model: that one never audits it", async () => {
  await using state = await tempDir("pitroom-state-");
  const chain = [A, B];
  // The earlier run fell back to fake/b, which gave the answer the cache hands out again.
  const earlier = await placeLiveRun(statePaths(state.path), {
    cwd: state.path,
    now: Date.now(),
    chain,
  });
  earlier.attempts = [{ ...A, startedAt: 0, outcome: "rate_limited" }, { ...B, startedAt: 1 }];
  await writeRecord(statePaths(state.path), earlier);
  const copy = { ...answered(chain, A), attempts: [], cached: { from: earlier.id, at: 0 } };
  assert.deepEqual(await choose(copy, {}, undefined, undefined, state.path), [A]);
  await refused(
    choose(copy, {}, "opencode:fake/b", undefined, state.path),
    "same_auditor",
    /it answered it \(opencode \(fake\/b\)\)/,
  );
  // The earlier run is gone: any target of the chain may have answered.
  await Deno.remove(statePaths(state.path).run(earlier.id).dir, { recursive: true });
  await refused(
    choose(copy, {}, undefined, undefined, state.path),
    "no_auditor",
    /answered by one of opencode \(fake\/a\), opencode \(fake\/b\) and no other worker or model/,
  );
  assert.deepEqual(await choose(copy, {}, "codex", undefined, state.path), [{ worker: "codex" }]);
});

Deno.test("a model typed with spaces around it is the same model", async () => {
  await refused(choose(answered([A]), {}, "opencode: fake/a "), "same_auditor", /it answered it/);
});
