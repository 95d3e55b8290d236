/**
 * Audits end to end with two real workers on the scripted model server: codex answers, claude
 * or another model of codex audits (never the same worker and model), and the verdict lands on
 * the audited run's record, its `--json`, its text report and the history; a disputed answer gets
 * its correction round in the answering model's own session; a run nobody else can audit is
 * refused; the config's sample rate starts an audit by itself in the background host.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { RunRecord } from "../../src/store/record.ts";
import { waitFor } from "../support/temp.ts";
import { type World, world } from "./_world.ts";

const BOUND = "120s";

const ANSWER = "The answer is defined in src/app.ts:1 as 41.";

const SCENARIOS = {
  "read-answer": {
    turns: [{ read: "src/app.ts" }, { answer: ANSWER }],
    followup: [{ read: "src/app.ts" }, { answer: "Corrected: src/app.ts:1 sets it to 41, once." }],
  },
  "audit-agree": {
    turns: [{ read: "src/app.ts" }, {
      answer: "Checked src/app.ts:1.\n\nAUDIT: AGREE\nDISPUTED: none",
    }],
  },
  "audit-disagree": {
    turns: [{ grep: "answer" }, {
      answer: [
        "I checked the cited line.",
        "",
        "**AUDIT: DISAGREE**",
        "DISPUTED:",
        "- the answer is 41: src/app.ts:1 says so, but README.md:1 names no answer",
        "- defined once: not confirmed",
      ].join("\n"),
    }],
  },
  "audit-mute": { turns: [{ read: "src/app.ts" }, { answer: "Looks right to me." }] },
};

function parse<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${what} is not JSON: ${text.slice(0, 2000)}`);
  }
}

/** A read run by codex; resolves with its id. */
async function answered(w: World, extra: string[] = []): Promise<string> {
  const r = await w.run([
    "run",
    "-t",
    BOUND,
    "--json",
    "-W",
    "codex",
    "-m",
    "fake/read-answer",
    ...extra,
    "Where is the answer defined?",
  ]);
  assert.equal(r.code, 0, r.stderr);
  return parse<RunRecord>(r.stdout, "run --json").id;
}

function historyRecord(w: World, id: string): RunRecord {
  const db = new DatabaseSync(join(w.stateDir, "history.db"), { readOnly: true });
  try {
    const row = db.prepare(
      "SELECT d.record FROM run_docs d JOIN runs r ON r.n = d.n WHERE r.id = ?",
    ).get(id) as { record: string } | undefined;
    assert.ok(row, `run ${id} is in the history`);
    return JSON.parse(row.record);
  } finally {
    db.close();
  }
}

function historyIds(w: World): string[] {
  const db = new DatabaseSync(join(w.stateDir, "history.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT id FROM runs").all() as { id: string }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

Deno.test("audit: claude agrees with codex's answer; the verdict is on the run, its report and the history", async () => {
  await using w = await world(SCENARIOS);
  const id = await answered(w);
  const r = await w.run(["audit", id, "-W", "claude:audit-agree", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const outcome = parse<{ run: string; audit: string; record: RunRecord }>(
    r.stdout,
    "audit --json",
  );
  assert.equal(outcome.run, id);
  const audit = outcome.record.audit!;
  assert.equal(audit.state, "done");
  assert.equal(audit.verdict, "AGREE");
  assert.deepEqual(audit.disputed, []);
  assert.equal(audit.worker, "claude");
  assert.equal(audit.model, "audit-agree");
  assert.equal(audit.sampled, false);
  assert.ok((audit.tokens?.input ?? 0) > 0, "the audit's own tokens are on the audit");
  // The audit was a real read run of claude, marked as an audit of the run, with its verdict.
  const auditRun = await w.record(outcome.audit);
  assert.deepEqual(auditRun.auditOf, {
    run: id,
    kind: "audit",
    fix: false,
    verdict: "AGREE",
    disputed: [],
  });
  assert.equal(auditRun.mode, "read");
  assert.deepEqual(auditRun.attempts.map((a) => a.worker), ["claude"]);
  // The report, --json and the history all carry it; the audit itself is not a run there.
  const shown = await w.run(["show", id]);
  assert.match(shown.stdout, /audit {4}AGREE by claude \(audit-agree\) · run /);
  const json = parse<RunRecord>((await w.run(["show", id, "--json"])).stdout, "show --json");
  assert.equal(json.audit?.verdict, "AGREE");
  assert.equal(historyRecord(w, id).audit?.verdict, "AGREE");
  assert.deepEqual(historyIds(w), [id]);
});

Deno.test("audit: another model of the same worker (tiers.audit codex:fake/audit-disagree) disagrees; auditFix runs one correction round in the answering model's session", async () => {
  await using w = await world(SCENARIOS, {
    config: { tiers: { audit: "codex:fake/audit-disagree" }, auditFix: true },
  });
  const id = await answered(w);
  const r = await w.run(["audit", id]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /audit {4}DISAGREE by codex \(fake\/audit-disagree\) · 2 disputed claims/,
  );
  assert.match(
    r.stdout,
    /- the answer is 41: src\/app\.ts:1 says so, but README\.md:1 names no answer/,
  );
  assert.match(r.stdout, /- defined once: not confirmed/);
  assert.match(r.stdout, /corrected answer \(run [0-9-a-f]+; the answer above is the first one\):/);
  const record = await w.record(id);
  const audit = record.audit!;
  assert.equal(audit.verdict, "DISAGREE");
  assert.equal(audit.disputed.length, 2);
  assert.deepEqual([audit.worker, audit.model], ["codex", "fake/audit-disagree"]);
  const auditRun = await w.record(audit.run!);
  assert.deepEqual(auditRun.attempts.map((a) => [a.worker, a.model]), [
    ["codex", "fake/audit-disagree"],
  ]);
  // The correction annotates: the first answer stays, the corrected one is on the audit.
  assert.equal(record.answer?.trim(), ANSWER);
  assert.equal(audit.fix?.state, "done");
  assert.equal(audit.fix?.answer?.trim(), "Corrected: src/app.ts:1 sets it to 41, once.");
  const fixRun = await w.record(audit.fix!.run!);
  assert.deepEqual(fixRun.auditOf, { run: id, kind: "fix" });
  // The correction round is the answering model's, never the auditor's.
  assert.deepEqual(fixRun.attempts.map((a) => [a.worker, a.model]), [
    ["codex", "fake/read-answer"],
  ]);
  assert.equal(fixRun.continues?.run, id);
  assert.equal(fixRun.continues?.sessionId, record.attempts.at(-1)?.sessionId);
  assert.match(fixRun.task, /the answer is 41: src\/app\.ts:1 says so/);
  assert.equal(historyRecord(w, id).audit?.fix?.state, "done");
  assert.deepEqual(historyIds(w), [id]);
});

Deno.test("audit: a reply without a verdict line is a failed audit (exit 1), never AGREE", async () => {
  await using w = await world(SCENARIOS);
  const id = await answered(w);
  const r = await w.run(["audit", id, "-W", "claude:audit-mute", "--json"]);
  assert.equal(r.code, 1, r.stderr);
  const audit = parse<{ record: RunRecord }>(r.stdout, "audit --json").record.audit!;
  assert.equal(audit.state, "failed");
  assert.equal(audit.verdict, undefined);
  assert.match(audit.message ?? "", /no AUDIT line/);
});

Deno.test("audit: refused with exit 3 when no other worker or model is configured, or when -W names the worker and model that answered; another model of that worker audits", async () => {
  await using w = await world(SCENARIOS);
  const id = await answered(w);
  const none = await w.run(["audit", id]);
  assert.equal(none.code, 3, none.stderr);
  assert.match(
    none.stderr,
    /No other worker or model can audit run ".+": it was answered by codex \(fake\/read-answer\)/,
  );
  assert.match(none.stderr, /tiers/);
  const same = await w.run(["audit", id, "-W", "codex:fake/read-answer"]);
  assert.equal(same.code, 3, same.stderr);
  assert.match(
    same.stderr,
    /^pitroom: codex \(fake\/read-answer\) cannot audit run .+ it answered it/m,
  );
  assert.equal((await w.record(id)).audit, undefined);
  // Another model of the same worker may: the report, show and --json say who audited.
  const other = await w.run(["audit", id, "-W", "codex:fake/audit-agree"]);
  assert.equal(other.code, 0, other.stderr);
  assert.match(other.stdout, /audit {4}AGREE by codex \(fake\/audit-agree\) · run /);
  const shown = await w.run(["show", id]);
  assert.match(shown.stdout, /audit {4}AGREE by codex \(fake\/audit-agree\) · run /);
  const json = parse<RunRecord>((await w.run(["show", id, "--json"])).stdout, "show --json");
  assert.deepEqual([json.audit?.worker, json.audit?.model], ["codex", "fake/audit-agree"]);
});

Deno.test("audit: with the sample rate at 1 a finished read run is audited in the background, by the audit tier's other model of the same worker; --no-audit opts out", async () => {
  await using w = await world(SCENARIOS, {
    config: { audit: 1, tiers: { audit: "codex:fake/audit-agree" } },
  });
  const skipped = await answered(w, ["--no-audit"]);
  const id = await answered(w);
  await waitFor(async () => (await w.record(id)).audit?.state === "done", {
    timeoutMs: 90_000,
    what: "the sampled audit to end",
  });
  const audit = (await w.record(id)).audit!;
  assert.equal(audit.verdict, "AGREE");
  assert.equal(audit.sampled, true);
  assert.deepEqual([audit.worker, audit.model], ["codex", "fake/audit-agree"]);
  assert.equal((await w.record(skipped)).audit, undefined);
});
